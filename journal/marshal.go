package journal

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// deltaTimestamp is the timestamp format of Delta journals: UTC with
// milliseconds.
const deltaTimestamp = "2006-01-02T15:04:05.000Z"

// MarshalDelta returns e as one Delta JSONL line, without the trailing
// newline: {"seq":…,"timestamp":…,"type":…,"payload":…} with the keys in that
// order, the timestamp in UTC with millisecond precision
// ("2025-10-02T10:00:03.250Z"), and the payload compacted onto the line. An empty or invalid payload is
// written as null.
func MarshalDelta(e Event) []byte {
	return AppendDelta(make([]byte, 0, 96+len(e.Payload)), e)
}

// AppendDelta appends the MarshalDelta form of e to b.
func AppendDelta(b []byte, e Event) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"timestamp":"`...)
	b = e.Timestamp.UTC().AppendFormat(b, deltaTimestamp)
	b = append(b, `","type":`...)
	b = appendJSONText(b, e.Type)
	b = append(b, `,"payload":`...)
	b = appendCompact(b, e.Payload)
	return append(b, '}')
}

// appendJSONText appends s as a JSON string.
func appendJSONText(b []byte, s string) []byte {
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

// appendCompact appends p compacted, or null if p is empty or not JSON.
func appendCompact(b []byte, p json.RawMessage) []byte {
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
