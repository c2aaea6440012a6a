package fold

// SetBetweenWindowReads makes f run between Store.Window's two reads, and
// returns what undoes it.
func SetBetweenWindowReads(f func()) (undo func()) {
	betweenWindowReads.Store(&f)
	return func() { betweenWindowReads.Store(nil) }
}
