package fold

import (
	"context"

	"github.com/delta-memory/delta-memory/journal"
)

// SetBetweenWindowReads makes f run between s.Window's two reads, and
// returns what undoes it.
func SetBetweenWindowReads(s *Store, f func()) (undo func()) {
	s.betweenWindowReads = f
	return func() { s.betweenWindowReads = nil }
}

// BlockID is blockID, for the tests of ParseBlockID.
var BlockID = blockID

// HeldForRecalls is what the scheduler's measure of run holds for its
// recalls: the window's size if nothing more were folded, less the
// partitions it counts.
func HeldForRecalls(ctx context.Context, s *Scheduler, run journal.Run) (int, error) {
	u, err := s.usage(ctx, run)
	return u.total() - (u.static + u.dynamic + u.longTerm + u.shortTerm + u.working), err
}
