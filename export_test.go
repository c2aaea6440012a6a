package memory

// FillInTurn makes e's fills render each batch of hits before ranking the
// next, as they did before the batches overlapped the ranking.
func FillInTurn(e *Engine, on bool) { e.fillInTurn = on }
