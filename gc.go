package memory

// BulkGCPercent is the garbage collector's target (as GOGC) that the delta
// command runs with when GOGC is not set. Importing and indexing allocate
// much and keep little: at Go's default of 100, collection took a fifth of
// a reindex's wall time. At 400 a 10,000-iteration reindex ran 20% faster
// and peaked at 350-470 MB resident instead of 150 MB. A sync never
// reaches its first collection either way.
const BulkGCPercent = 400
