package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jsonEnc marshals payloads without HTML escaping, so that code and shell
// commands in the journal stay readable ("->", "&&", "<").
type jsonEnc struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newJSONEnc() *jsonEnc {
	j := &jsonEnc{}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

// marshal returns the compact JSON encoding of v in a new slice. The values
// marshaled here are plain structs of strings and numbers, which cannot fail
// to encode; a failure is a programming error and panics.
func (j *jsonEnc) marshal(v any) json.RawMessage {
	j.buf.Reset()
	if err := j.enc.Encode(v); err != nil {
		panic(fmt.Sprintf("synth: marshal %T: %v", v, err))
	}
	return bytes.Clone(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
}

// marshalString is marshal for tool-call arguments, which THOUGHT events
// carry as a JSON string.
func (j *jsonEnc) marshalString(v any) string {
	j.buf.Reset()
	if err := j.enc.Encode(v); err != nil {
		panic(fmt.Sprintf("synth: marshal %T: %v", v, err))
	}
	return string(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
}
