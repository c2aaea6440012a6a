package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/internal/testrun"
	"github.com/delta-memory/delta-memory/journal"
)

// BenchmarkAppendIteration measures one iteration (THOUGHT, ACTION_REQUEST,
// ACTION_RESULT) appended and committed to a run that already holds 1,000
// and 10,000 iterations, and 100,000 with DELTA_BENCH_LARGE=1
// (testrun.LargeEnv). The run is the folded, indexed one the other
// benchmarks share (testrun.BenchOptions), so the database is as large as
// a real one of that length. Each op adds to the run: keep -benchtime well
// below the smallest length. It reports the median and 99th percentile per
// append besides the mean.
func BenchmarkAppendIteration(b *testing.B) {
	for _, n := range testrun.Sizes(1_000, 10_000) {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			ctx := context.Background()
			eng := testrun.Cached(b, testrun.BenchOptions(n))
			run, err := eng.Journal.Run(ctx, testrun.RunID)
			if err != nil {
				b.Fatal(err)
			}
			if run.Iterations != n {
				b.Fatalf("the built run holds %d iterations, want %d", run.Iterations, n)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ev := appendBatch(run.LastSeq+1+int64(3*i), i)
				start := time.Now()
				if _, err := eng.Journal.Append(ctx, testrun.RunID, journal.FormatDelta, ev); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// appendBatch is the i-th appended iteration, its first event at seq: one
// file read, with a short output.
func appendBatch(seq int64, i int) []journal.Event {
	ts := time.Date(2025, 10, 2, 10, 0, 0, 0, time.UTC)
	id := fmt.Sprintf("bench_call_%d", i)
	return []journal.Event{
		{Seq: seq, Timestamp: ts, Type: journal.TypeThought, Payload: json.RawMessage(fmt.Sprintf(
			`{"content":"Step %d: read the config to find the retry budget.","tool_calls":[{"id":%q,"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"config/settings.yaml\"}"}}]}`, i, id))},
		{Seq: seq + 1, Timestamp: ts, Type: journal.TypeActionRequest, Payload: json.RawMessage(fmt.Sprintf(
			`{"action_id":%q,"tool_name":"read_file","tool_args":{"path":"config/settings.yaml"},"resolved_command":"cat config/settings.yaml"}`, id))},
		{Seq: seq + 2, Timestamp: ts, Type: journal.TypeActionResult, Payload: json.RawMessage(fmt.Sprintf(
			`{"action_id":%q,"status":"SUCCESS","observation_content":"retry_budget: 3\ntimeout_s: 30\nhosts:\n  - localhost:8080\n"}`, id))},
	}
}
