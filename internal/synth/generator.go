package synth

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/delta-memory/delta-memory/journal"
)

// Defaults applied by New to zero Config fields.
const (
	// defaultMaxOutputBytes is the default cap on one tool output.
	defaultMaxOutputBytes = 24_000
)

// defaultStart is the default timestamp of the first event.
func defaultStart() time.Time { return time.Date(2025, 10, 2, 10, 0, 0, 0, time.UTC) }

// Salts that derive the generator's random streams from the seed.
const (
	structureSalt = 0x5D_E1_7A_00_C0_FF_EE_01
	outputSalt    = 0x0B_5E_27_A7_10_4E_00_02
)

// Config controls a generated run.
type Config struct {
	// Seed selects the run. Equal configs give byte-identical journals.
	Seed uint64
	// Iterations is the number of iterations (THOUGHT events) to produce.
	// It must be greater than zero.
	Iterations int
	// RunID is the run id written in RUN_START. Default "synth-<seed>".
	RunID string
	// Start is the timestamp of the first event (RUN_START), converted to UTC
	// and truncated to milliseconds. Default 2025-10-02T10:00:00Z.
	Start time.Time
	// MaxOutputBytes caps the length in bytes of one tool output
	// (observation_content) and of the file content the agent writes.
	// Longer outputs are cut and end with a truncation marker. Default
	// 24000; a small value such as 200 makes light journals for benchmarks.
	MaxOutputBytes int
	// SystemPrompt, when set, is written as a SYSTEM_PROMPT event after
	// RUN_START (AgentManual is a realistic one). The rest of the run is
	// the same with or without it.
	SystemPrompt string
}

// Bundled is the run the demo replays and testdata/journals/synth-400.jsonl
// holds: 400 iterations of a software-engineering agent.
var Bundled = Config{Seed: 7, Iterations: 400, RunID: "synth-400"}

// withDefaults validates cfg and fills its zero fields.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Iterations <= 0 {
		return cfg, fmt.Errorf("synth: Iterations must be > 0, got %d", cfg.Iterations)
	}
	if cfg.MaxOutputBytes < 0 {
		return cfg, fmt.Errorf("synth: MaxOutputBytes must be >= 0, got %d", cfg.MaxOutputBytes)
	}
	if cfg.MaxOutputBytes == 0 {
		cfg.MaxOutputBytes = defaultMaxOutputBytes
	}
	if cfg.RunID == "" {
		cfg.RunID = fmt.Sprintf("synth-%d", cfg.Seed)
	}
	if cfg.Start.IsZero() {
		cfg.Start = defaultStart()
	}
	cfg.Start = cfg.Start.UTC().Truncate(time.Millisecond)
	return cfg, nil
}

// Generator produces the events of one run, one iteration per call to Next.
// A Generator is not safe for concurrent use.
type Generator struct {
	cfg  Config
	rng  *rand.Rand // structure: phases, steps, outcomes, output sizes
	opcg *rand.PCG  // reseeded for every tool output
	orng *rand.Rand // text of tool outputs, drawn from opcg
	enc  *jsonEnc
	obuf out

	proj   *project
	reg    *registry
	phases []*phase // phases[0] is the current phase; the rest are planned
	cycle  int      // number of requests planned so far
	task   string   // the initial request

	seq   int64
	clock time.Time
	iter  int    // iterations produced so far
	calls uint64 // tool calls produced so far

	pending     []followUp // repair steps queued after a failure
	ack         string     // acknowledgement of a user note for the next thought
	serverUp    bool       // the dev server is running
	scriptsExec bool       // scripts/*.sh have the executable bit
	hookAt      [2]int     // iterations that carry a HOOK_EXECUTION_AUDIT event

	evs []journal.Event // events of the iteration being built
}

// New returns a Generator for cfg. It fails if cfg.Iterations is not
// positive or cfg.MaxOutputBytes is negative.
func New(cfg Config) (*Generator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &Generator{
		cfg:   cfg,
		rng:   rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^structureSalt)),
		opcg:  rand.NewPCG(0, 0),
		enc:   newJSONEnc(),
		reg:   newRegistry(),
		clock: cfg.Start,
	}
	g.orng = rand.New(g.opcg)
	g.proj = newProject(g.rng)
	g.phases = planCycle(g.rng, g.proj, 0, 1, g.proj.version)
	g.cycle = 1
	g.task = taskText(g.proj, g.phases)
	g.hookAt = [2]int{min(4, cfg.Iterations), -1}
	if cfg.Iterations >= 30 {
		g.hookAt[1] = cfg.Iterations * 2 / 3
	}
	return g, nil
}

// Next returns the events of the next iteration and true, or nil and false
// once all cfg.Iterations iterations have been returned.
//
// Each call returns exactly one iteration: an optional USER_MESSAGE or
// SYSTEM_MESSAGE that arrived before it, the THOUGHT, then for each tool call
// its ACTION_REQUEST and ACTION_RESULT (a SYSTEM_MESSAGE warning or a
// HOOK_EXECUTION_AUDIT event may follow a result). The first call also
// returns the preamble (RUN_START and the task as USER_MESSAGE) before the
// iteration; the last call also returns RUN_END after it. Sequence numbers
// continue across calls. The returned slice and its payloads belong to the
// caller.
func (g *Generator) Next() ([]journal.Event, bool) {
	if g.iter >= g.cfg.Iterations {
		return nil, false
	}
	g.iter++
	g.evs = make([]journal.Event, 0, 8)
	if g.iter == 1 {
		g.emit(journal.TypeRunStart, journal.RunStartPayload{
			RunID: g.cfg.RunID, Task: g.task, AgentRef: "agents/swe-agent@v3",
		}, 0)
		if g.cfg.SystemPrompt != "" {
			g.emit(journal.TypeSystemPrompt, journal.TextPayload{Content: g.cfg.SystemPrompt}, 0)
		}
		g.emit(journal.TypeUserMessage, journal.TextPayload{Content: g.task}, between(g.rng, 5, 60))
	}
	g.iteration()
	if g.iter == g.cfg.Iterations {
		g.emit(journal.TypeRunEnd, journal.RunEndPayload{Status: "COMPLETED"}, between(g.rng, 200, 1500))
	}
	evs := g.evs
	g.evs = nil
	return evs, true
}

// Events returns all events of the run described by cfg.
func Events(cfg Config) ([]journal.Event, error) {
	g, err := New(cfg)
	if err != nil {
		return nil, err
	}
	var all []journal.Event
	for {
		evs, ok := g.Next()
		if !ok {
			return all, nil
		}
		all = append(all, evs...)
	}
}

// WriteJSONL writes the run described by cfg to w in Delta's JSONL format:
// one journal.MarshalDelta line per event, each ending in "\n". It streams, so memory
// use does not grow with cfg.Iterations.
func WriteJSONL(w io.Writer, cfg Config) error {
	g, err := New(cfg)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for {
		evs, ok := g.Next()
		if !ok {
			break
		}
		for _, e := range evs {
			line = journal.AppendDelta(line[:0], e)
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return fmt.Errorf("synth: write event %d: %w", e.Seq, err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("synth: flush: %w", err)
	}
	return nil
}

// emit appends an event of type typ, ms milliseconds after the previous one.
func (g *Generator) emit(typ string, payload any, ms int) {
	g.seq++
	g.clock = g.clock.Add(time.Duration(ms) * time.Millisecond)
	g.evs = append(g.evs, journal.Event{
		Seq: g.seq, Timestamp: g.clock, Type: typ, Payload: g.enc.marshal(payload),
	})
}
