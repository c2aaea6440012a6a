package scoring

import (
	_ "embed" // the vocabularies are embedded strings

	"github.com/delta-memory/delta-memory/scoring/internal/bpevocab"
)

//go:generate go run ./internal/vocabgen -out vocab

// The vocabulary files are written by internal/vocabgen from tiktoken-go's
// tables, in the form of package bpevocab. Embedding them as strings keeps
// them in the binary's read-only data: nothing is decoded or copied when a
// process starts, and lookups read the pages they need.
var (
	//go:embed vocab/o200k_base.bin
	o200kBaseData string
	//go:embed vocab/cl100k_base.bin
	cl100kBaseData string
)

// vocabulary is one encoding's ordinary tokens and their ranks. It is read
// only, so it is safe for concurrent use.
type vocabulary struct {
	bpevocab.Table
}

// mustVocabulary opens an embedded vocabulary file, reading only its header.
// The files are generated and tested, so an error is a build defect.
func mustVocabulary(data string) vocabulary {
	t, err := bpevocab.Open(data)
	if err != nil {
		panic("scoring: embedded vocabulary: " + err.Error())
	}
	return vocabulary{t}
}
