package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/recall"
)

// FileConfig is the optional configuration file (YAML or JSON), by default
// memory.yaml beside the database. LoadFileConfig starts from DESIGN.md's
// defaults and replaces only the keys the file sets, at every depth: a file
// with `pressure: {high: 0.85}` keeps the default low and urgent. Flags and
// environment variables beat the file.
type FileConfig struct {
	Budget          int            `yaml:"budget" json:"budget"`
	Tokenizer       string         `yaml:"tokenizer" json:"tokenizer"`
	KeepRecent      int            `yaml:"keep_recent" json:"keep_recent"`
	Chunk           int            `yaml:"chunk" json:"chunk"`
	PinnedCap       int            `yaml:"pinned_cap" json:"pinned_cap"`
	MaxOutputTokens int            `yaml:"max_output_tokens" json:"max_output_tokens"`
	Shares          fileShares     `yaml:"shares" json:"shares"`
	Pressure        filePressure   `yaml:"pressure" json:"pressure"`
	Interval        fileInterval   `yaml:"interval" json:"interval"`
	Recall          fileRecall     `yaml:"recall" json:"recall"`
	Importance      fileImportance `yaml:"importance" json:"importance"`
	// LLM holds the summarizer settings (see LLMConfig); the API key is
	// never read from the file. Its defaults are resolved by ResolveLLM,
	// where flags and environment variables come in.
	LLM *fileLLM `yaml:"llm,omitempty" json:"llm,omitempty"`

	// File is the file the settings were read from, "" when there was none.
	File string `yaml:"-" json:"-"`
	// Set lists the keys the file set, as dotted paths (shares.static).
	Set []string `yaml:"-" json:"-"`
}

type fileShares struct {
	Static    float64 `yaml:"static" json:"static"`
	LongTerm  float64 `yaml:"long_term" json:"long_term"`
	ShortTerm float64 `yaml:"short_term" json:"short_term"`
	Working   float64 `yaml:"working" json:"working"`
	Retrieved float64 `yaml:"retrieved" json:"retrieved"`
	Dynamic   float64 `yaml:"dynamic" json:"dynamic"`
	// StaticCap is not a share: the most of the budget Static may take
	// when the system prompt and task need more than its share.
	StaticCap float64 `yaml:"static_cap" json:"static_cap"`
}

type filePressure struct {
	High   float64 `yaml:"high" json:"high"`
	Low    float64 `yaml:"low" json:"low"`
	Urgent float64 `yaml:"urgent" json:"urgent"`
}

type fileInterval struct {
	Calm    int     `yaml:"calm" json:"calm"`
	Busy    int     `yaml:"busy" json:"busy"`
	Pressed int     `yaml:"pressed" json:"pressed"`
	BusyAt  float64 `yaml:"busy_at" json:"busy_at"`
}

type fileRecall struct {
	TTL               int     `yaml:"ttl" json:"ttl"`
	ImplicitThreshold float64 `yaml:"implicit_threshold" json:"implicit_threshold"`
	MaxImplicit       int     `yaml:"max_implicit" json:"max_implicit"`
	MaxError          int     `yaml:"max_error" json:"max_error"`
	Limit             int     `yaml:"limit" json:"limit"`
	MaxHits           int     `yaml:"max_hits" json:"max_hits"`
	Focus             int     `yaml:"focus" json:"focus"`
	Context           int     `yaml:"context" json:"context"`
	IndexEvery        int     `yaml:"index_every" json:"index_every"`
	SecondHop         int     `yaml:"second_hop" json:"second_hop"`
	Nearby            int     `yaml:"nearby" json:"nearby"`
	Concepts          float64 `yaml:"concepts" json:"concepts"`
	Dates             int     `yaml:"dates" json:"dates"`
}

type fileImportance struct {
	Recency     float64 `yaml:"recency" json:"recency"`
	Access      float64 `yaml:"access" json:"access"`
	Error       float64 `yaml:"error" json:"error"`
	StateChange float64 `yaml:"state_change" json:"state_change"`
	HalfLife    int     `yaml:"half_life" json:"half_life"`
}

// ConfigError is a configuration file that cannot be used: a key it does
// not know, a value of the wrong type, or settings that do not work
// together once merged over the defaults.
type ConfigError struct {
	// File is the configuration file.
	File string
	Err  error
}

// Error names the settings file and what is wrong in it.
func (e *ConfigError) Error() string { return fmt.Sprintf("config %s: %v", e.File, e.Err) }

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// DefaultFileConfig returns the settings a file starts from: DESIGN.md's
// fold and recall defaults.
func DefaultFileConfig() FileConfig {
	f, r := fold.DefaultConfig(0), recall.DefaultConfig()
	s := f.Shares
	return FileConfig{
		Budget: f.Budget, KeepRecent: f.KeepRecent, Chunk: f.Chunk, PinnedCap: f.PinnedCap, MaxOutputTokens: f.MaxOutputTokens,
		Shares:   fileShares{Static: s.Static, LongTerm: s.LongTerm, ShortTerm: s.ShortTerm, Working: s.Working, Retrieved: s.Retrieved, Dynamic: s.Dynamic, StaticCap: s.StaticCap},
		Pressure: filePressure{High: f.PressureHigh, Low: f.PressureLow, Urgent: f.PressureUrgent},
		Interval: fileInterval{Calm: f.IntervalCalm, Busy: f.IntervalBusy, Pressed: f.IntervalPressed, BusyAt: f.IntervalBusyAt},
		Recall: fileRecall{TTL: r.TTL, ImplicitThreshold: r.ImplicitThreshold, MaxImplicit: r.MaxImplicit, MaxError: r.MaxError,
			Limit: r.Limit, MaxHits: r.MaxHits, Focus: r.Focus, Context: r.Context, IndexEvery: r.IndexEvery, SecondHop: r.SecondHop, Nearby: r.Nearby, Concepts: r.Concepts, Dates: r.Dates},
		Importance: fileImportance{Recency: f.Weights.Recency, Access: f.Weights.Access, Error: f.Weights.Error,
			StateChange: f.Weights.StateChange, HalfLife: f.RecencyHalfLife},
	}
}

// LoadFileConfig reads a configuration file over DefaultFileConfig. A
// missing file at the default location is not an error: pass
// required=false for that case, and get the defaults. Every other failure
// is a *ConfigError naming the file: an unknown key (at any depth), a
// value of the wrong type, or shares that cannot add up to at most 1.
//
// A file that raises some shares but does not set working takes the excess
// from working, the partition that unused share flows to anyway.
func LoadFileConfig(path string, required bool) (FileConfig, error) {
	fc := DefaultFileConfig()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		return fc, nil
	}
	if err != nil {
		return fc, &ConfigError{File: path, Err: fmt.Errorf("read: %w", err)}
	}
	fc.File = path
	fail := func(err error) (FileConfig, error) { return fc, &ConfigError{File: path, Err: err} }
	asJSON := filepath.Ext(path) == ".json"
	var tree any
	if asJSON {
		err = json.Unmarshal(data, &tree)
	} else {
		err = yaml.Unmarshal(data, &tree)
	}
	if err != nil {
		return fail(err)
	}
	if tree == nil {
		return fc, nil // an empty file, or only comments
	}
	if fc.Set, err = knownKeys(reflect.TypeOf(fc), tree, ""); err != nil {
		return fail(err)
	}
	// Decoding into fc replaces only the keys the file has: both decoders
	// fill an existing struct field by field.
	if asJSON {
		err = json.Unmarshal(data, &fc)
	} else {
		err = yaml.Unmarshal(data, &fc)
	}
	if err != nil {
		return fail(errors.New(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")))
	}
	if err := fc.checkValues(); err != nil {
		return fail(err)
	}
	if err := fc.fitShares(); err != nil {
		return fail(err)
	}
	return fc, nil
}

// checkValues refuses the values a file may set that the engine would
// otherwise replace without a word: in the fold and recall settings, 0
// stands for the default and a negative count for "none", so a file's
// `second_hop: 0` would search a second time, and `budget: -5` would
// lay out 32,000 tokens. The ranges themselves are checked where the
// settings are used (fold.Config.Validate, recall.Config.Validate).
func (fc FileConfig) checkValues() error {
	dr := recall.DefaultConfig()
	for _, c := range []struct {
		key  string
		v    float64
		want string
	}{
		{"budget", float64(fc.Budget), "at least 500 tokens; leave it out for the default, 32000"},
		{"recall.ttl", float64(fc.Recall.TTL), fmt.Sprintf("1 to 10000 iterations; leave it out for the default, %d", dr.TTL)},
		{"recall.max_implicit", float64(fc.Recall.MaxImplicit), fmt.Sprintf("at least 1; leave it out for the default, %d", dr.MaxImplicit)},
		{"recall.max_error", float64(fc.Recall.MaxError), fmt.Sprintf("at least 1; leave it out for the default, %d", dr.MaxError)},
		{"recall.max_hits", float64(fc.Recall.MaxHits), fmt.Sprintf("at least 1; leave it out for the default, %d", dr.MaxHits)},
		{"recall.focus", float64(fc.Recall.Focus), fmt.Sprintf("at least 1 hit; leave it out for the default, %d", dr.Focus)},
		{"recall.index_every", float64(fc.Recall.IndexEvery), fmt.Sprintf("1 to 1024 iterations; leave it out for the default, %d", dr.IndexEvery)},
		{"importance.half_life", float64(fc.Importance.HalfLife), "at least 1 iteration (a recency weight of 0 turns recency off)"},
	} {
		if fc.IsSet(c.key) && c.v <= 0 {
			return fmt.Errorf("%s %g: want %s", c.key, c.v, c.want)
		}
	}
	for _, c := range []struct {
		key     string
		v       float64
		def     float64
		meaning string
	}{
		{"recall.context", float64(fc.Recall.Context), float64(dr.Context), "iterations on each side of a best hit"},
		{"recall.second_hop", float64(fc.Recall.SecondHop), float64(dr.SecondHop), "words searched for a second time"},
		{"recall.nearby", float64(fc.Recall.Nearby), float64(dr.Nearby), "iterations on each side that count as near a hit"},
		{"recall.concepts", fc.Recall.Concepts, dr.Concepts, "the weight of the concept search"},
		{"recall.dates", float64(fc.Recall.Dates), float64(dr.Dates), "time cues and questions that ask when, 1 for on"},
	} {
		if !fc.IsSet(c.key) || c.v > 0 || c.v == -1 {
			continue
		}
		if c.v == 0 {
			return fmt.Errorf("%s 0: 0 stands for the default (%g); -1 turns it off (%s)", c.key, c.def, c.meaning)
		}
		return fmt.Errorf("%s %g: want -1 (off) or a positive value (%s; default %g)", c.key, c.v, c.meaning, c.def)
	}
	for _, c := range []struct {
		key string
		v   float64
	}{
		{"importance.recency", fc.Importance.Recency}, {"importance.access", fc.Importance.Access},
		{"importance.error", fc.Importance.Error}, {"importance.state_change", fc.Importance.StateChange},
	} {
		if fc.IsSet(c.key) && !(c.v >= 0 && !math.IsInf(c.v, 1)) {
			return fmt.Errorf("%s %g: want a weight of 0 or more (0 leaves the factor out)", c.key, c.v)
		}
	}
	return nil
}

// knownKeys checks the keys of a decoded file against the struct type t
// (by their yaml tags), and returns the dotted paths of the leaves it sets.
// prefix is the path of the section being checked.
func knownKeys(t reflect.Type, tree any, prefix string) ([]string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	m, ok := tree.(map[string]any)
	if !ok {
		if prefix == "" {
			return nil, errors.New("want a mapping of settings (key: value) at the top")
		}
		return nil, fmt.Errorf("%s: want a mapping, e.g. %s: {%s: …}", strings.TrimSuffix(prefix, "."), strings.TrimSuffix(prefix, "."), keysOf(t)[0])
	}
	var set []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f, ok := fieldByKey(t, k)
		if !ok {
			section := "at the top"
			if prefix != "" {
				section = "under " + strings.TrimSuffix(prefix, ".")
			}
			return nil, fmt.Errorf("unknown key %s%s; the keys %s are %s", prefix, k, section, strings.Join(keysOf(t), ", "))
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && m[k] != nil {
			sub, err := knownKeys(ft, m[k], prefix+k+".")
			if err != nil {
				return nil, err
			}
			set = append(set, sub...)
			continue
		}
		set = append(set, prefix+k)
	}
	return set, nil
}

// fieldByKey finds the field of struct type t whose yaml key is k.
func fieldByKey(t reflect.Type, k string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == k && name != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// keysOf lists the yaml keys of struct type t, in declaration order.
func keysOf(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// blame names the file in an error about the settings it gave, when the
// settings came from a file.
func (fc FileConfig) blame(err error) error {
	if fc.File == "" || err == nil {
		return err
	}
	return &ConfigError{File: fc.File, Err: err}
}

// IsSet reports whether the file set the key at a dotted path
// (shares.static).
func (fc FileConfig) IsSet(path string) bool { return slices.Contains(fc.Set, path) }

// fitShares makes the shares add up to at most 1 when the file raised some
// of them and left working alone: working, where unused share goes anyway,
// gives up the excess. It fails when that is not enough, or when the file
// set working itself.
func (fc *FileConfig) fitShares() error {
	s := &fc.Shares
	sum := s.Static + s.LongTerm + s.ShortTerm + s.Working + s.Retrieved + s.Dynamic
	const slack = 1e-9
	if sum <= 1+slack {
		return nil
	}
	values := fmt.Sprintf("static %.2f, long_term %.2f, short_term %.2f, working %.2f, retrieved %.2f, dynamic %.2f",
		s.Static, s.LongTerm, s.ShortTerm, s.Working, s.Retrieved, s.Dynamic)
	if fc.IsSet("shares.working") {
		return fmt.Errorf("shares add up to %.2f, more than 1 (%s, counting the defaults of the shares not set); lower one of them", sum, values)
	}
	// Rounded, so that 0.2 is not printed as 0.19999999999999973.
	if rest := math.Round((1-(sum-s.Working))*1e6) / 1e6; rest >= 0 {
		s.Working = rest
		return nil
	}
	return fmt.Errorf("shares add up to %.2f, more than 1 even with working at 0 (%s, counting the defaults of the shares not set); lower one of them", sum, values)
}

// FoldConfig returns the fold settings the file gives.
func (fc FileConfig) FoldConfig() fold.Config {
	c := fold.DefaultConfig(fc.Budget)
	c.KeepRecent, c.Chunk, c.PinnedCap, c.MaxOutputTokens = fc.KeepRecent, fc.Chunk, fc.PinnedCap, fc.MaxOutputTokens
	s := fc.Shares
	c.Shares = fold.Shares{Static: s.Static, LongTerm: s.LongTerm, ShortTerm: s.ShortTerm, Working: s.Working, Retrieved: s.Retrieved, Dynamic: s.Dynamic, StaticCap: s.StaticCap}
	p := fc.Pressure
	c.PressureHigh, c.PressureLow, c.PressureUrgent = p.High, p.Low, p.Urgent
	i := fc.Interval
	c.IntervalCalm, c.IntervalBusy, c.IntervalPressed, c.IntervalBusyAt = i.Calm, i.Busy, i.Pressed, i.BusyAt
	w := fc.Importance
	c.Weights.Recency, c.Weights.Access, c.Weights.Error, c.Weights.StateChange = w.Recency, w.Access, w.Error, w.StateChange
	c.RecencyHalfLife = w.HalfLife
	return c
}

// RecallConfig returns the recall settings the file gives.
func (fc FileConfig) RecallConfig() recall.Config {
	r := fc.Recall
	return recall.Config{TTL: r.TTL, ImplicitThreshold: r.ImplicitThreshold, MaxImplicit: r.MaxImplicit, MaxError: r.MaxError,
		Limit: r.Limit, MaxHits: r.MaxHits, Focus: r.Focus, Context: r.Context, IndexEvery: r.IndexEvery, SecondHop: r.SecondHop, Nearby: r.Nearby, Concepts: r.Concepts, Dates: r.Dates}
}
