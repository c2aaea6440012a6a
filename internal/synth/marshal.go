package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/delta-memory/delta-memory/journal"
)

// timestampLayout is the timestamp format of Delta journals: UTC with
// milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// MarshalLine returns e as one Delta JSONL line, without the trailing
// newline: {"seq":…,"timestamp":…,"type":…,"payload":…} with the keys in that
// order, the timestamp in UTC with millisecond precision
// ("2025-10-02T10:00:03.250Z"), and the payload compacted onto the line. An empty or invalid payload is
// written as null.
func MarshalLine(e journal.Event) []byte {
	return appendLine(make([]byte, 0, 96+len(e.Payload)), e)
}

// appendLine appends the MarshalLine form of e to b.
func appendLine(b []byte, e journal.Event) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"timestamp":"`...)
	b = e.Timestamp.UTC().AppendFormat(b, timestampLayout)
	b = append(b, `","type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"payload":`...)
	b = appendPayload(b, e.Payload)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // marshaling a string cannot fail
	return append(b, q...)
}

// appendPayload appends p compacted, or null if p is empty or not JSON.
func appendPayload(b []byte, p json.RawMessage) []byte {
	if len(p) == 0 {
		return append(b, "null"...)
	}
	n := len(b)
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, p); err != nil {
		return append(b[:n], "null"...)
	}
	return buf.Bytes()
}

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
