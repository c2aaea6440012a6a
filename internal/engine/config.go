package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/delta-memory/delta-memory/fold"
	"github.com/delta-memory/delta-memory/recall"
)

// FileConfig is the optional configuration file (YAML or JSON), by default
// memory.yaml beside the database. Every field is optional; what is absent
// keeps DESIGN.md's default. Flags and environment variables beat the file.
type FileConfig struct {
	Budget          int     `yaml:"budget" json:"budget"`
	Tokenizer       string  `yaml:"tokenizer" json:"tokenizer"`
	KeepRecent      int     `yaml:"keep_recent" json:"keep_recent"`
	Chunk           int     `yaml:"chunk" json:"chunk"`
	PinnedCap       *int    `yaml:"pinned_cap" json:"pinned_cap"`
	MaxOutputTokens int     `yaml:"max_output_tokens" json:"max_output_tokens"`
	Shares          *shares `yaml:"shares" json:"shares"`
	Pressure        *struct {
		High   float64 `yaml:"high" json:"high"`
		Low    float64 `yaml:"low" json:"low"`
		Urgent float64 `yaml:"urgent" json:"urgent"`
	} `yaml:"pressure" json:"pressure"`
	Interval *struct {
		Calm    int     `yaml:"calm" json:"calm"`
		Busy    int     `yaml:"busy" json:"busy"`
		Pressed int     `yaml:"pressed" json:"pressed"`
		BusyAt  float64 `yaml:"busy_at" json:"busy_at"`
	} `yaml:"interval" json:"interval"`
	Recall *struct {
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
	} `yaml:"recall" json:"recall"`
	Importance *struct {
		Recency     float64 `yaml:"recency" json:"recency"`
		Access      float64 `yaml:"access" json:"access"`
		Error       float64 `yaml:"error" json:"error"`
		StateChange float64 `yaml:"state_change" json:"state_change"`
		HalfLife    int     `yaml:"half_life" json:"half_life"`
	} `yaml:"importance" json:"importance"`
	// LLM holds the summarizer settings (see LLMConfig); the API key is
	// never read from the file.
	LLM *fileLLM `yaml:"llm" json:"llm"`
}

type shares struct {
	Static    float64 `yaml:"static" json:"static"`
	LongTerm  float64 `yaml:"long_term" json:"long_term"`
	ShortTerm float64 `yaml:"short_term" json:"short_term"`
	Working   float64 `yaml:"working" json:"working"`
	Retrieved float64 `yaml:"retrieved" json:"retrieved"`
	Dynamic   float64 `yaml:"dynamic" json:"dynamic"`
}

// LoadFileConfig reads a configuration file. A missing file at the default
// location is not an error: pass required=false for that case.
func LoadFileConfig(path string, required bool) (FileConfig, error) {
	var fc FileConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		return fc, nil
	}
	if err != nil {
		return fc, fmt.Errorf("read config: %w", err)
	}
	if filepath.Ext(path) == ".json" {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(&fc)
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err = dec.Decode(&fc); errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		return fc, fmt.Errorf("config %s: %w", path, err)
	}
	return fc, nil
}

// Apply overlays the file's settings on a fold configuration.
func (fc FileConfig) Apply(c *fold.Config) {
	if fc.Budget > 0 {
		c.Budget = fc.Budget
	}
	if fc.KeepRecent > 0 {
		c.KeepRecent = fc.KeepRecent
	}
	if fc.Chunk > 0 {
		c.Chunk = fc.Chunk
	}
	if fc.PinnedCap != nil {
		c.PinnedCap = *fc.PinnedCap
	}
	if fc.MaxOutputTokens > 0 {
		c.MaxOutputTokens = fc.MaxOutputTokens
	}
	if s := fc.Shares; s != nil {
		c.Shares = fold.Shares{Static: s.Static, LongTerm: s.LongTerm, ShortTerm: s.ShortTerm, Working: s.Working, Retrieved: s.Retrieved, Dynamic: s.Dynamic}
	}
	if p := fc.Pressure; p != nil {
		c.PressureHigh, c.PressureLow, c.PressureUrgent = p.High, p.Low, p.Urgent
	}
	if i := fc.Interval; i != nil {
		c.IntervalCalm, c.IntervalBusy, c.IntervalPressed, c.IntervalBusyAt = i.Calm, i.Busy, i.Pressed, i.BusyAt
	}
	if w := fc.Importance; w != nil {
		c.Weights.Recency, c.Weights.Access, c.Weights.Error, c.Weights.StateChange = w.Recency, w.Access, w.Error, w.StateChange
		if w.HalfLife > 0 {
			c.RecencyHalfLife = w.HalfLife
		}
	}
}

// ApplyRecall overlays the file's recall settings.
func (fc FileConfig) ApplyRecall(c *recall.Config) {
	r := fc.Recall
	if r == nil {
		return
	}
	if r.TTL != 0 {
		c.TTL = r.TTL
	}
	if r.ImplicitThreshold != 0 {
		c.ImplicitThreshold = r.ImplicitThreshold
	}
	if r.MaxImplicit != 0 {
		c.MaxImplicit = r.MaxImplicit
	}
	if r.MaxError != 0 {
		c.MaxError = r.MaxError
	}
	if r.Limit != 0 {
		c.Limit = r.Limit
	}
	if r.MaxHits != 0 {
		c.MaxHits = r.MaxHits
	}
	if r.Focus != 0 {
		c.Focus = r.Focus
	}
	if r.SecondHop != 0 {
		c.SecondHop = r.SecondHop
	}
	if r.Context != 0 {
		c.Context = r.Context
	}
	if r.IndexEvery != 0 {
		c.IndexEvery = r.IndexEvery
	}
}
