package journal

import "time"

// Run statuses. Delta reports COMPLETED, FAILED or INTERRUPTED in RUN_END;
// until then a Delta run is RUNNING. OpenAI transcripts carry no status.
const (
	RunRunning = "RUNNING"
	RunUnknown = "UNKNOWN"
)

// Input formats a run can be imported from.
const (
	FormatDelta  = "delta"
	FormatOpenAI = "openai"
)

// Run is one agent execution and the counters kept for it.
type Run struct {
	ID           string    `db:"id" json:"id"`
	Task         string    `db:"task" json:"task"`
	SystemPrompt string    `db:"system_prompt" json:"system_prompt,omitempty"`
	AgentRef     string    `db:"agent_ref" json:"agent_ref,omitempty"`
	Status       string    `db:"status" json:"status"`
	Format       string    `db:"format" json:"format"`
	StartedAt    time.Time `db:"-" json:"started_at,omitzero"`
	EndedAt      time.Time `db:"-" json:"ended_at,omitzero"`
	Iterations   int       `db:"iterations" json:"iterations"`
	Events       int64     `db:"events" json:"events"`
	LastSeq      int64     `db:"last_seq" json:"last_seq"`
}
