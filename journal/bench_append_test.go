package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// BenchmarkAppendIteration measures one iteration (THOUGHT, ACTION_REQUEST,
// ACTION_RESULT) appended and committed to a run that keeps growing. It
// reports the median and 99th percentile per append besides the mean.
func BenchmarkAppendIteration(b *testing.B) {
	ctx := context.Background()
	s, _ := openStore(b)
	if _, err := s.Append(ctx, "bench", journal.FormatDelta, []journal.Event{
		{Seq: 1, Type: journal.TypeRunStart, Payload: json.RawMessage(`{"run_id":"bench","task":"benchmark"}`)},
	}); err != nil {
		b.Fatal(err)
	}
	ts := time.Date(2025, 10, 2, 10, 0, 0, 0, time.UTC)
	batch := func(i int) []journal.Event {
		seq := int64(2 + 3*i)
		id := fmt.Sprintf("call_%d", i)
		return []journal.Event{
			{Seq: seq, Timestamp: ts, Type: journal.TypeThought, Payload: json.RawMessage(fmt.Sprintf(
				`{"content":"Step %d: read the config to find the retry budget.","tool_calls":[{"id":%q,"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"config/settings.yaml\"}"}}]}`, i, id))},
			{Seq: seq + 1, Timestamp: ts, Type: journal.TypeActionRequest, Payload: json.RawMessage(fmt.Sprintf(
				`{"action_id":%q,"tool_name":"read_file","tool_args":{"path":"config/settings.yaml"},"resolved_command":"cat config/settings.yaml"}`, id))},
			{Seq: seq + 2, Timestamp: ts, Type: journal.TypeActionResult, Payload: json.RawMessage(fmt.Sprintf(
				`{"action_id":%q,"status":"SUCCESS","observation_content":"retry_budget: 3\ntimeout_s: 30\nhosts:\n  - localhost:8080\n"}`, id))},
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := batch(i)
		start := time.Now()
		if _, err := s.Append(ctx, "bench", journal.FormatDelta, ev); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
