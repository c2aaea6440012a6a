package fold

// SetBetweenWindowReads makes f run between s.Window's two reads, and
// returns what undoes it.
func SetBetweenWindowReads(s *Store, f func()) (undo func()) {
	s.betweenWindowReads = f
	return func() { s.betweenWindowReads = nil }
}

// BlockID is blockID, for the tests of ParseBlockID.
var BlockID = blockID
