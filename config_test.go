package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/recall"
)

// openWithSettings opens an engine on a new database with memory.yaml
// (or the named file) beside it holding text.
func openWithSettings(t *testing.T, name, text string) (*memory.Engine, string, error) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := memory.Config{DBPath: filepath.Join(dir, "memory.db")}
	if name != "memory.yaml" {
		cfg.ConfigFile = file
	}
	eng, err := memory.Open(context.Background(), cfg)
	if err == nil {
		t.Cleanup(func() { eng.Close() })
	}
	return eng, file, err
}

// TestSettingsMergeOverDefaults: a file that sets one key of a section
// leaves the section's other keys at their defaults.
func TestSettingsMergeOverDefaults(t *testing.T) {
	t.Parallel()
	def := fold.DefaultConfig(0)
	for _, tc := range []struct {
		name, file, text string
		check            func(t *testing.T, c fold.Config, r recall.Config)
	}{
		{"one share; working gives up the excess", "memory.yaml", "shares: {static: 0.2}\n", func(t *testing.T, c fold.Config, _ recall.Config) {
			want := def.Shares
			want.Static, want.Working = 0.2, 0.2
			if !sharesNear(c.Shares, want) {
				t.Errorf("shares %+v, want %+v", c.Shares, want)
			}
		}},
		{"a share below its default leaves the others", "memory.yaml", "shares:\n  retrieved: 0.05\n", func(t *testing.T, c fold.Config, _ recall.Config) {
			want := def.Shares
			want.Retrieved = 0.05
			if !sharesNear(c.Shares, want) {
				t.Errorf("shares %+v, want %+v", c.Shares, want)
			}
		}},
		{"one pressure threshold", "memory.yaml", "pressure: {high: 0.85}\n", func(t *testing.T, c fold.Config, _ recall.Config) {
			if c.PressureHigh != 0.85 || c.PressureLow != def.PressureLow || c.PressureUrgent != def.PressureUrgent {
				t.Errorf("pressure high %.2f low %.2f urgent %.2f, want 0.85 %.2f %.2f", c.PressureHigh, c.PressureLow, c.PressureUrgent, def.PressureLow, def.PressureUrgent)
			}
		}},
		{"one interval and one weight", "memory.yaml", "interval: {busy: 10}\nimportance: {error: 0.5}\n", func(t *testing.T, c fold.Config, _ recall.Config) {
			if c.IntervalBusy != 10 || c.IntervalCalm != def.IntervalCalm || c.IntervalPressed != def.IntervalPressed || c.IntervalBusyAt != def.IntervalBusyAt {
				t.Errorf("interval %+v", c)
			}
			w := def.Weights
			w.Error = 0.5
			if c.Weights != w || c.RecencyHalfLife != def.RecencyHalfLife {
				t.Errorf("importance %+v half-life %d, want %+v %d", c.Weights, c.RecencyHalfLife, w, def.RecencyHalfLife)
			}
		}},
		{"pinned cap 0 is kept", "memory.yaml", "pinned_cap: 0\n", func(t *testing.T, c fold.Config, _ recall.Config) {
			if c.PinnedCap != 0 || c.KeepRecent != def.KeepRecent {
				t.Errorf("pinned cap %d keep recent %d", c.PinnedCap, c.KeepRecent)
			}
		}},
		{"-1 turns the signals off", "memory.yaml", "recall: {context: -1, second_hop: -1, nearby: -1, concepts: -1, dates: -1}\n", func(t *testing.T, _ fold.Config, r recall.Config) {
			if r.Context != 0 || r.SecondHop != 0 || r.Nearby != 0 || r.Concepts != 0 || r.Dates != 0 {
				t.Errorf("recall %+v: want context, second_hop, nearby, concepts and dates off", r)
			}
		}},
		{"JSON merges the same way", "settings.json", `{"pressure": {"low": 0.5}, "recall": {"ttl": 4}}`, func(t *testing.T, c fold.Config, r recall.Config) {
			if c.PressureLow != 0.5 || c.PressureHigh != def.PressureHigh {
				t.Errorf("pressure low %.2f high %.2f", c.PressureLow, c.PressureHigh)
			}
			want := recall.DefaultConfig()
			want.TTL = 4
			if r != want {
				t.Errorf("recall %+v, want %+v", r, want)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			eng, _, err := openWithSettings(t, tc.file, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, eng.Config, eng.Recall.Config())
		})
	}
}

func sharesNear(a, b fold.Shares) bool {
	near := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	return near(a.Static, b.Static) && near(a.LongTerm, b.LongTerm) && near(a.ShortTerm, b.ShortTerm) &&
		near(a.Working, b.Working) && near(a.Retrieved, b.Retrieved) && near(a.Dynamic, b.Dynamic)
}

// TestSettingsErrorsNameTheFile: unknown keys at any depth and values that
// do not work after the merge are errors that name the file and the key,
// not the database.
func TestSettingsErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, text string
		want             []string
	}{
		{"unknown top-level key", "memory.yaml", "budgett: 9000\n", []string{"unknown key budgett", "budget"}},
		{"unknown share", "memory.yaml", "shares: {statc: 0.2}\n", []string{"unknown key shares.statc", "static"}},
		{"unknown recall key", "memory.yaml", "recall:\n  ttl: 4\n  tll: 5\n", []string{"unknown key recall.tll"}},
		{"unknown llm key", "memory.yaml", "llm: {modle: x}\n", []string{"unknown key llm.modle"}},
		{"unknown JSON key", "s.json", `{"interval": {"calm": 40, "quiet": 1}}`, []string{"unknown key interval.quiet"}},
		{"not a section", "memory.yaml", "shares: 0.2\n", []string{"shares", "a mapping"}},
		{"thresholds checked after the merge", "memory.yaml", "pressure: {high: 0.55}\n", []string{"pressure", "low (0.60)", "high (0.55)"}},
		{"shares that cannot fit", "memory.yaml", "shares: {static: 0.5, long_term: 0.5}\n", []string{"shares", "add up to"}},
		{"shares with working set", "memory.yaml", "shares: {static: 0.3, working: 0.3}\n", []string{"shares", "add up to 1.20"}},
		{"a bad type", "memory.yaml", "pressure: {high: lots}\n", []string{"line 1", "lots"}},
		{"a bad tokenizer", "memory.yaml", "tokenizer: gpt2\n", []string{"gpt2"}},
		{"a bad recall value", "memory.yaml", "recall: {implicit_threshold: 2}\n", []string{"implicit_threshold"}},
		{"a bad llm timeout", "memory.yaml", "llm: {timeout: soon}\n", []string{"llm.timeout"}},
		{"a negative budget", "memory.yaml", "budget: -5\n", []string{"budget -5", "at least 500"}},
		{"a count of 0, which means the default", "memory.yaml", "recall: {ttl: 0}\n", []string{"recall.ttl 0", "default, 8"}},
		{"0 to turn a signal off", "memory.yaml", "recall: {second_hop: 0}\n", []string{"second_hop 0", "default (8)", "-1 turns it off"}},
		{"a signal below -1", "s.json", `{"recall": {"nearby": -3}}`, []string{"recall.nearby -3", "-1 (off)"}},
		{"a negative weight", "memory.yaml", "importance: {recency: -1}\n", []string{"importance.recency -1"}},
		{"a half-life of 0", "memory.yaml", "importance: {half_life: 0}\n", []string{"importance.half_life 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, file, err := openWithSettings(t, tc.file, tc.text)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			t.Log(msg)
			for _, w := range append([]string{file}, tc.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "memory.db") {
				t.Errorf("error %q names the database, not the settings file", msg)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), "memory.db")); err == nil {
				t.Error("bad settings left a database behind")
			}
		})
	}
}
