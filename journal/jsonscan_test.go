package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// deltaLine is a typical Delta journal line: the envelope, and a payload with
// a nested tool call whose arguments are an escaped JSON string.
const deltaLine = `{"seq":3,"timestamp":"2025-10-02T10:00:03.000Z","type":"THOUGHT","payload":{"content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}}`

// member is one top-level object member as scanObject reports it.
type member struct{ key, value string }

// collectObject runs scanObject and returns the members it reported.
func collectObject(data []byte) ([]member, error) {
	var ms []member
	err := scanObject(data, func(k, v []byte) error {
		ms = append(ms, member{string(k), string(v)})
		return nil
	})
	return ms, err
}

// collectArray runs scanArray and returns the elements it reported.
func collectArray(data []byte) ([]string, error) {
	var es []string
	err := scanArray(data, func(e []byte) error {
		es = append(es, string(e))
		return nil
	})
	return es, err
}

// stdlibSyntaxError is the SyntaxError encoding/json reports for data, or nil
// when data is valid JSON.
func stdlibSyntaxError(data []byte) *json.SyntaxError {
	var raw json.RawMessage
	var se *json.SyntaxError
	if errors.As(json.Unmarshal(data, &raw), &se) {
		return se
	}
	return nil
}

// checkSameError fails unless err is the *scanError carrying encoding/json's
// message and offset for the invalid input data.
func checkSameError(t *testing.T, data []byte, err error) {
	t.Helper()
	want := stdlibSyntaxError(data)
	if want == nil {
		t.Fatalf("%q: encoding/json accepts it, but got error %v", data, err)
	}
	var se *scanError
	if !errors.As(err, &se) {
		t.Fatalf("%q: got %T %v, want *scanError %q", data, err, err, want)
	}
	if se.msg != want.Error() || se.Offset != want.Offset {
		t.Fatalf("%q: got error %q at offset %d, encoding/json says %q at %d", data, se.msg, se.Offset, want.Error(), want.Offset)
	}
}

// invalidJSON are inputs that encoding/json rejects, for objects and arrays
// alike; each is checked to fail with encoding/json's message and offset.
var invalidJSON = []string{
	``,
	`   `,
	`{`,
	`[`,
	`}`,
	`]`,
	`{"a"`,
	`{"a":`,
	`{"a":1`,
	`{"a":1,`,
	`{"a":1,}`,
	`{,}`,
	`{"a" 1}`,
	`{"a"::1}`,
	`{a:1}`,
	`{'a':1}`,
	`{"a":1 "b":2}`,
	`{"a":1}}`,
	`{"a":01}`,
	`{"a":00}`,
	`{"a":-01}`,
	`{"a":1.}`,
	`{"a":1.e5}`,
	`{"a":.5}`,
	`{"a":-}`,
	`{"a":-.5}`,
	`{"a":+1}`,
	`{"a":1e}`,
	`{"a":1e+}`,
	`{"a":1E-}`,
	`{"a":1e5.5}`,
	`{"a":0x10}`,
	`{"a":NaN}`,
	`{"a":Infinity}`,
	`{"a":-Infinity}`,
	`{"a":tru}`,
	`{"a":truE}`,
	`{"a":True}`,
	`{"a":nul}`,
	`{"a":nulll}`,
	`{"a":fals}`,
	`{"a":"\x"}`,
	`{"a":"\u12G4"}`,
	`{"a":"\u12"}`,
	`{"a":"\U00e9"}`,
	`{"a":"\'"}`,
	"{\"a\":\"tab\tin string\"}",
	"{\"a\":\"nl\nin string\"}",
	"{\"a\":\"nul\x00\"}",
	`{"a":"unterminated}`,
	`{"a":[1,]}`,
	`{"a":[,1]}`,
	`{"a":[1 2]}`,
	`{"a":[}`,
	`{"a":{]}`,
	`{} x`,
	`{}{}`,
	`{} {}`,
	`{}]`,
	"{}\x00",
	"\xef\xbb\xbf{}", // encoding/json does not skip a byte-order mark
	"\v{}",           // vertical tab is not JSON whitespace
	"\u00a0{}",       // nor is a no-break space
	"{\"a\":1\u00a0}",
	`[1,]`,
	`[,1]`,
	`[1 2]`,
	`[1`,
	`[1,`,
	`["a":1]`,
	`[] []`,
	`-`,
	`1.`,
	`01`,
	`"a`,
	`t`,
	`"\`,
	`"\u00`,
	`{"a":1}x`,
	`{"a":"x"} "`,
}

func TestScanObject(t *testing.T) {
	tests := []struct {
		in   string
		want []member
	}{
		{`{}`, nil},
		{" \t\r\n{ \t\r\n} \t\r\n", nil},
		{`{"a":1}`, []member{{"a", "1"}}},
		{`{ "a" : 1 , "b" : [1, 2] }`, []member{{"a", "1"}, {"b", "[1, 2]"}}},
		{"{\n\t\"a\":\n\t{\"b\" : {\"c\":[ ]}}\n}", []member{{"a", `{"b" : {"c":[ ]}}`}}},
		{`{"a":1,"a":2}`, []member{{"a", "1"}, {"a", "2"}}},
		{`{"":""}`, []member{{"", `""`}}},
		{`{"t":true,"f":false,"n":null}`, []member{{"t", "true"}, {"f", "false"}, {"n", "null"}}},
		{
			`{"s":"x\"y\\z\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`,
			[]member{{"s", `"x\"y\\z\/\b\f\n\r\t\u00e9\uD83D\uDE00"`}},
		},
		{`{"k\u0065y":1,"q\"":2}`, []member{{`k\u0065y`, "1"}, {`q\"`, "2"}}},
		{`{"é":"ü","日本":"語"}`, []member{{"é", `"ü"`}, {"日本", `"語"`}}},
		{"{\"\xff\":\"\xfe\x80\"}", []member{{"\xff", "\"\xfe\x80\""}}}, // invalid UTF-8 is fine
		{"{\"a\":\"\x7f\"}", []member{{"a", "\"\x7f\""}}},               // DEL is not a control character here
		{
			`{"a":-0,"b":0.5e+10,"c":1E-2,"d":-1.25e3,"e":0,"f":123456789012345678901234567890,"g":0e0,"h":-0.0}`,
			[]member{{"a", "-0"}, {"b", "0.5e+10"}, {"c", "1E-2"}, {"d", "-1.25e3"}, {"e", "0"}, {"f", "123456789012345678901234567890"}, {"g", "0e0"}, {"h", "-0.0"}},
		},
		{`{"a":[{"b":[[],{}]}],"z":{}}`, []member{{"a", `[{"b":[[],{}]}]`}, {"z", "{}"}}},
		{deltaLine, []member{
			{"seq", "3"},
			{"timestamp", `"2025-10-02T10:00:03.000Z"`},
			{"type", `"THOUGHT"`},
			{"payload", `{"content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}`},
		}},
	}
	for _, tt := range tests {
		got, err := collectObject([]byte(tt.in))
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if !equalMembers(got, tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}

	for _, in := range invalidJSON {
		_, err := collectObject([]byte(in))
		checkSameError(t, []byte(in), err)
	}
}

func equalMembers(a, b []member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestScanArray(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`[]`, nil},
		{" [ \n ] ", nil},
		{`[1]`, []string{"1"}},
		{
			`[1,"a",{"b":[2]},[],null,true,false,-0.5e-3, "x\"y" ]`,
			[]string{"1", `"a"`, `{"b":[2]}`, "[]", "null", "true", "false", "-0.5e-3", `"x\"y"`},
		},
		{`[[[]]]`, []string{"[[]]"}},
		{"[ {} ,\n{ } ]", []string{"{}", "{ }"}},
	}
	for _, tt := range tests {
		got, err := collectArray([]byte(tt.in))
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") || len(got) != len(tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}

	for _, in := range invalidJSON {
		_, err := collectArray([]byte(in))
		checkSameError(t, []byte(in), err)
	}
}

// TestScanWrongKind checks that valid JSON of the wrong kind is refused, and
// that a syntax error still wins over the wrong kind, as in json.Unmarshal.
func TestScanWrongKind(t *testing.T) {
	for _, tt := range []struct{ in, objErr, arrErr string }{
		{`[1]`, "cannot scan JSON array as an object", ""},
		{`{"a":1}`, "", "cannot scan JSON object as an array"},
		{` "x" `, "cannot scan JSON string as an object", "cannot scan JSON string as an array"},
		{`1`, "cannot scan JSON number as an object", "cannot scan JSON number as an array"},
		{`-0.5`, "cannot scan JSON number as an object", "cannot scan JSON number as an array"},
		{`null`, "cannot scan JSON null as an object", "cannot scan JSON null as an array"},
		{`false`, "cannot scan JSON bool as an object", "cannot scan JSON bool as an array"},
	} {
		_, err := collectObject([]byte(tt.in))
		checkErrText(t, "scanObject", tt.in, err, tt.objErr)
		_, err = collectArray([]byte(tt.in))
		checkErrText(t, "scanArray", tt.in, err, tt.arrErr)
	}
	for _, in := range []string{`[1,]`, `"x`, `1 2`, `[] x`} {
		_, err := collectObject([]byte(in))
		checkSameError(t, []byte(in), err)
	}
}

func checkErrText(t *testing.T, fn, in string, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s(%q): %v", fn, in, err)
		}
		return
	}
	var se *scanError
	if !errors.As(err, &se) || se.Error() != want {
		t.Errorf("%s(%q) = %v, want *scanError %q", fn, in, err, want)
	}
}

// TestScanDepth checks encoding/json's nesting limit: 10000 levels are fine,
// 10001 are not, and much deeper input fails the same way instead of
// exhausting the stack.
func TestScanDepth(t *testing.T) {
	nestArrays := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	nestObjects := func(n int) []byte {
		return []byte(strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1))
	}
	if err := scanArray(nestArrays(scanMaxDepth), func([]byte) error { return nil }); err != nil {
		t.Errorf("depth %d array: %v", scanMaxDepth, err)
	}
	if err := scanObject(nestObjects(scanMaxDepth), func(_, _ []byte) error { return nil }); err != nil {
		t.Errorf("depth %d object: %v", scanMaxDepth, err)
	}
	for _, in := range [][]byte{
		nestArrays(scanMaxDepth + 1),
		nestObjects(scanMaxDepth + 1),
		[]byte(strings.Repeat("[", 1_000_000)),
		[]byte(`{"a":` + strings.Repeat(`[{"b":`, 1_000_000)),
	} {
		err := scanArray(in, func([]byte) error { return nil })
		checkSameError(t, in, err)
		err = scanObject(in, func(_, _ []byte) error { return nil })
		checkSameError(t, in, err)
		if !strings.Contains(err.Error(), "exceeded max depth") {
			t.Errorf("deep input: got %v", err)
		}
	}
}

// TestScanCallbackError checks that fn's error stops the scan at once and is
// returned as is, even when the rest of the input is invalid.
func TestScanCallbackError(t *testing.T) {
	errStop := errors.New("stop")
	for _, in := range []string{`{"a":1,"b":2,"c":3}`, `{"a":1,"b":2,"c":`, `{"a":1,"b":2 x`} {
		var keys []string
		err := scanObject([]byte(in), func(k, _ []byte) error {
			keys = append(keys, string(k))
			if string(k) == "b" {
				return errStop
			}
			return nil
		})
		if err != errStop || strings.Join(keys, ",") != "a,b" {
			t.Errorf("scanObject(%q): err %v after keys %q, want %v after a,b", in, err, keys, errStop)
		}
	}
	for _, in := range []string{`[1,2,3]`, `[1,2,]`} {
		var n int
		err := scanArray([]byte(in), func([]byte) error {
			n++
			if n == 2 {
				return errStop
			}
			return nil
		})
		if err != errStop || n != 2 {
			t.Errorf("scanArray(%q): err %v after %d elements, want %v after 2", in, err, n, errStop)
		}
	}
}

func TestScanJSONString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`""`, ""},
		{`"plain"`, "plain"},
		{`"é日本"`, "é日本"},
		{`"a\nb"`, "a\nb"},
		{`"q\"q"`, `q"q`},
		{`"\\\/\b\f\n\r\t"`, "\\/\b\f\n\r\t"},
		{`"\u00e9"`, "é"},
		{`"\u00E9\u0041"`, "éA"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00"`, "😀"},
		{`"\ud83d"`, "\uFFFD"},        // lone high surrogate
		{`"\ude00"`, "\uFFFD"},        // lone low surrogate
		{`"\ud83dx"`, "\uFFFDx"},      // high surrogate, then not an escape
		{`"\ud83d\u0041"`, "\uFFFDA"}, // high surrogate, then not a low one
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD"},
		{"\"\xff\"", "\uFFFD"},                     // invalid UTF-8 is repaired, as encoding/json does
		{"\"a\xe2\x82\"", "a\uFFFD\uFFFD"},         // truncated sequence: one U+FFFD per byte
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD"}, // UTF-8-encoded surrogate
		{`"\u0000"`, "\x00"},
	} {
		got, err := jsonString([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("jsonString(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		var std string
		if err := json.Unmarshal([]byte(tt.in), &std); err != nil || std != got {
			t.Errorf("jsonString(%q) = %q; encoding/json gives %q, %v", tt.in, got, std, err)
		}
	}
	for _, in := range []string{``, `"`, `"abc`, `abc"`, `1`, `null`, `true`, `{}`, `[]`, `"a"b"`, "\"tab\t\"", `"\x"`} {
		if got, err := jsonString([]byte(in)); err == nil {
			t.Errorf("jsonString(%q) = %q, want an error", in, got)
		}
	}
}

func TestScanKeyIs(t *testing.T) {
	for _, tt := range []struct {
		raw, name string
		want      bool
	}{
		{"seq", "seq", true},
		{"SEQ", "seq", true},
		{"Seq", "seq", true},
		{"sEq", "SeQ", true},
		{`se\u0071`, "seq", true},
		{`S\u0045Q`, "seq", true},
		{`\u0073\u0065\u0071`, "seq", true},
		{"seqs", "seq", false},
		{"se", "seq", false},
		{"", "seq", false},
		{"", "", true},
		{"sek", "seq", false},
		{"se_", "seq", false},
		{"se\x7f", "seq", false},
		{`se\x`, "seq", false},    // invalid escape
		{`se\"`, `se"`, true},     // escaped quote
		{"\u017feq", "seq", true}, // long s folds to s, as in encoding/json
		{`\u017feq`, "SEQ", true},
		{"\u212a", "k", true}, // Kelvin sign folds to k
		{"tool_call_id", "tool_call_id", true},
		{"TOOL_CALL_ID", "tool_call_id", true},
		{"TOOL-CALL-ID", "tool_call_id", false},
		{"éa", "ÉA", true},
		{"\xff", "\uFFFD", true}, // both decode to U+FFFD
	} {
		if got := keyIs([]byte(tt.raw), tt.name); got != tt.want {
			t.Errorf("keyIs(%q, %q) = %v, want %v", tt.raw, tt.name, got, tt.want)
		}
	}
}

// keyIsFields are field names that fold differently from each other, for the
// differential check of keyIs against encoding/json's field matching.
var keyIsFields = []string{"seq", "timestamp", "k", "ss", "ünïcode"}

type keyIsTarget struct {
	Seq       int `json:"seq"`
	Timestamp int `json:"timestamp"`
	K         int `json:"k"`
	SS        int `json:"ss"`
	Unicode   int `json:"ünïcode"`
}

// checkKeyIsLikeStdlib decodes {rawKey: 1} into keyIsTarget and checks that
// keyIs picks the same field as encoding/json.
func checkKeyIsLikeStdlib(t *testing.T, rawKey []byte) {
	t.Helper()
	obj := append(append([]byte(`{"`), rawKey...), `":1}`...)
	if ms, err := collectObject(obj); err != nil || len(ms) != 1 || ms[0].key != string(rawKey) {
		return // not a single valid key
	}
	var v keyIsTarget
	if err := json.Unmarshal(obj, &v); err != nil {
		t.Fatalf("encoding/json cannot decode %q: %v", obj, err)
	}
	set := []bool{v.Seq == 1, v.Timestamp == 1, v.K == 1, v.SS == 1, v.Unicode == 1}
	for i, name := range keyIsFields {
		if got := keyIs(rawKey, name); got != set[i] {
			t.Fatalf("keyIs(%q, %q) = %v, but encoding/json says %v", rawKey, name, got, set[i])
		}
	}
}

func TestScanKeyIsLikeStdlib(t *testing.T) {
	for _, k := range []string{"seq", "SEQ", `s\u0045q`, "\u017f\u017f", "\u212a", `\u212A`, "K", "TIMESTAMP", "ÜNÏCODE", "ünïcodE", "ünïcode\xff", "timestamp\x00"} {
		checkKeyIsLikeStdlib(t, []byte(k))
	}
}

func FuzzScanKeyIs(f *testing.F) {
	for _, k := range []string{"seq", "SEQ", `s\u0045q`, "\u017f\u017f", "\u212a", "TIMESTAMP", "ÜNÏCODE", `\u00fcn\u00efcode`} {
		f.Add([]byte(k))
	}
	f.Fuzz(checkKeyIsLikeStdlib)
}

func TestScanKindOf(t *testing.T) {
	for in, want := range map[string]byte{
		`{}`: kindObject, `[]`: kindArray, `""`: kindString, `true`: kindBool, `false`: kindBool,
		`null`: kindNull, `0`: kindNumber, `-1`: kindNumber, `12.5e3`: kindNumber, ``: 0,
	} {
		if got := kindOf([]byte(in)); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScanAllocs checks that scanning allocates nothing of its own.
func TestScanAllocs(t *testing.T) {
	line := []byte(deltaLine)
	var n int
	objFn := func(k, v []byte) error { n += len(k) + len(v); return nil }
	arrFn := func(e []byte) error { n += len(e); return nil }
	arr := []byte(`[1,"two",{"three":[3]},null,true,-4.5e6]`)
	if a := testing.AllocsPerRun(100, func() {
		if err := scanObject(line, objFn); err != nil {
			t.Fatal(err)
		}
		if err := scanArray(arr, arrFn); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("scanning allocates %v times per run, want 0", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		if !keyIs([]byte("Payload"), "payload") || keyIs([]byte("payloads"), "payload") {
			t.Fatal("keyIs is wrong")
		}
	}); a != 0 {
		t.Errorf("keyIs allocates %v times per run, want 0", a)
	}
}

// fuzzSeeds are interesting inputs for both differential fuzz targets.
var fuzzSeeds = []string{
	deltaLine,
	`{}`,
	`[]`,
	` { "a" : [ 1 , 2 ] , "b" : { } } `,
	`{"a":1,"a":2,"A":3}`,
	`{"k\u0065y":"\ud83d\ude00\ud83d","\u00e9":"\"\\\/\b\f\n\r\t"}`,
	"{\"\xff\":\"\xfe\"}",
	`{"n":[-0,0.5e+10,1E-2,-1.25e3,123456789012345678901234567890]}`,
	`{"a":01}`,
	`{"a":1.}`,
	`{"a":.5}`,
	`{"a":-}`,
	`{"a":1e}`,
	`{} x`,
	`{}{}`,
	`[1,"a",{"b":[null,true,false]},[]]`,
	`[1,]`,
	`"x"`,
	`{"a":"\u12G4"}`,
	"{\"a\":\"\x01\"}",
	strings.Repeat("[", 100) + strings.Repeat("]", 100),
}

// FuzzScanObject checks scanObject against encoding/json: it accepts exactly
// the objects json.Valid accepts, with encoding/json's error otherwise, and
// the members it reports are the ones json.Unmarshal finds.
func FuzzScanObject(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys, values [][]byte
		err := scanObject(data, func(k, v []byte) error {
			keys = append(keys, k)
			values = append(values, v)
			return nil
		})
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		valid := json.Valid(data)
		if want := valid && trimmed[0] == '{'; want != (err == nil) {
			t.Fatalf("scanObject(%q) = %v, but json.Valid = %v", data, err, valid)
		}
		if !valid {
			checkSameError(t, data, err)
			return
		}
		if err != nil {
			return // valid, but not an object
		}

		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("encoding/json cannot decode %q: %v", data, err)
		}
		last := make(map[string][]byte)
		for i, k := range keys {
			checkSpan(t, data, values[i])
			name, err := jsonString(append(append([]byte{'"'}, k...), '"'))
			if err != nil {
				t.Fatalf("key %q of %q: %v", k, data, err)
			}
			if !keyIs(k, name) {
				t.Fatalf("keyIs(%q, %q) = false", k, name)
			}
			last[name] = values[i]
			checkJSONString(t, values[i])
		}
		if len(last) != len(m) {
			t.Fatalf("%q: scanObject found %d distinct keys, encoding/json %d", data, len(last), len(m))
		}
		for k, v := range m {
			if !bytes.Equal(last[k], v) {
				t.Fatalf("%q: key %q is %q, encoding/json says %q", data, k, last[k], v)
			}
		}
	})
}

// FuzzScanArray is FuzzScanObject for scanArray.
func FuzzScanArray(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var elems [][]byte
		err := scanArray(data, func(e []byte) error {
			elems = append(elems, e)
			return nil
		})
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		valid := json.Valid(data)
		if want := valid && trimmed[0] == '['; want != (err == nil) {
			t.Fatalf("scanArray(%q) = %v, but json.Valid = %v", data, err, valid)
		}
		if !valid {
			checkSameError(t, data, err)
			return
		}
		if err != nil {
			return
		}

		var a []json.RawMessage
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatalf("encoding/json cannot decode %q: %v", data, err)
		}
		if len(a) != len(elems) {
			t.Fatalf("%q: scanArray found %d elements, encoding/json %d", data, len(elems), len(a))
		}
		for i, e := range elems {
			checkSpan(t, data, e)
			if !bytes.Equal(e, a[i]) {
				t.Fatalf("%q: element %d is %q, encoding/json says %q", data, i, e, a[i])
			}
			checkJSONString(t, e)
		}
	})
}

// checkSpan checks that a reported value is a valid JSON value without
// surrounding whitespace, and a subslice of data (not a copy).
func checkSpan(t *testing.T, data, span []byte) {
	t.Helper()
	if len(span) == 0 || !json.Valid(span) || isJSONSpace(span[0]) || isJSONSpace(span[len(span)-1]) {
		t.Fatalf("%q: bad value span %q", data, span)
	}
	off := cap(data) - cap(span)
	if off < 0 || off+len(span) > len(data) || &data[off] != &span[0] {
		t.Fatalf("%q: value span %q does not alias the input", data, span)
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// checkJSONString checks jsonString against encoding/json on a value span.
func checkJSONString(t *testing.T, span []byte) {
	t.Helper()
	got, err := jsonString(span)
	var want string
	wantErr := json.Unmarshal(span, &want)
	if kindOf(span) != kindString {
		if err == nil {
			t.Fatalf("jsonString(%q) = %q, want an error", span, got)
		}
		return
	}
	if err != nil || wantErr != nil || got != want {
		t.Fatalf("jsonString(%q) = %q, %v; encoding/json gives %q, %v", span, got, err, want, wantErr)
	}
	if !utf8.ValidString(got) {
		t.Fatalf("jsonString(%q) = %q is not valid UTF-8", span, got)
	}
}

// escapedLine is a Delta line carrying a 20 KB tool output: source code, so
// a JSON string full of \n, \t, \" and \u escapes.
var escapedLine = func() []byte {
	var src strings.Builder
	for src.Len() < 20<<10 {
		src.WriteString("\tif err := f(\"<é>\"); err != nil && x > 0 {\n\t\treturn fmt.Errorf(\"wrap: %w\\n\", err)\n\t}\n")
	}
	out, err := json.Marshal(src.String())
	if err != nil {
		panic(err)
	}
	return []byte(`{"seq":4,"timestamp":"2025-10-02T10:00:04.000Z","type":"ACTION_RESULT","payload":{"tool_call_id":"c1","status":"SUCCESS","output":` + string(out) + `}}`)
}()

var benchLines = []struct {
	name string
	line []byte
}{
	{"delta", []byte(deltaLine)},
	{"escaped20KB", escapedLine},
}

// synthJournalLines are the lines of the committed synthetic journal, a
// realistic mix of short events and large tool outputs, or nil if missing.
func synthJournalLines(b *testing.B) [][]byte {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "journals", "synth-400.jsonl"))
	if err != nil {
		b.Skip(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// envelopeFields picks the envelope out of a line's members, as an importer
// would. It allocates nothing.
type envelopeFields struct{ seq, ts, typ, payload []byte }

func (e *envelopeFields) member(k, v []byte) error {
	switch {
	case keyIs(k, "seq"):
		e.seq = v
	case keyIs(k, "timestamp"):
		e.ts = v
	case keyIs(k, "type"):
		e.typ = v
	case keyIs(k, "payload"):
		e.payload = v
	}
	return nil
}

// BenchmarkScanObjectJournal scans every line of the synthetic journal and
// picks out the envelope; compare BenchmarkUnmarshalEnvelopeJournal.
func BenchmarkScanObjectJournal(b *testing.B) {
	lines := synthJournalLines(b)
	var env envelopeFields
	fn := env.member
	b.ReportAllocs()
	b.SetBytes(int64(len(bytes.Join(lines, nil))))
	for b.Loop() {
		for _, l := range lines {
			if err := scanObject(l, fn); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkUnmarshalEnvelopeJournal is what BenchmarkScanObjectJournal
// replaces.
func BenchmarkUnmarshalEnvelopeJournal(b *testing.B) {
	lines := synthJournalLines(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(bytes.Join(lines, nil))))
	for b.Loop() {
		for _, l := range lines {
			var env struct{ Seq, Timestamp, Type, Payload json.RawMessage }
			if err := json.Unmarshal(l, &env); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScanObjectLine scans a line and picks out the envelope fields, as
// an importer would ("fields"), or merely scans it ("scan").
func BenchmarkScanObjectLine(b *testing.B) {
	for _, bl := range benchLines {
		b.Run(bl.name+"/scan", func(b *testing.B) {
			var n int
			fn := func(k, v []byte) error { n += len(v); return nil }
			b.ReportAllocs()
			b.SetBytes(int64(len(bl.line)))
			for b.Loop() {
				if err := scanObject(bl.line, fn); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bl.name+"/fields", func(b *testing.B) {
			var env envelopeFields
			fn := env.member
			b.ReportAllocs()
			b.SetBytes(int64(len(bl.line)))
			for b.Loop() {
				if err := scanObject(bl.line, fn); err != nil {
					b.Fatal(err)
				}
			}
			if env.seq == nil || env.ts == nil || env.typ == nil || env.payload == nil {
				b.Fatal("missing a field")
			}
		})
	}
}

// BenchmarkUnmarshalEnvelopeLine is what BenchmarkScanObjectLine replaces.
func BenchmarkUnmarshalEnvelopeLine(b *testing.B) {
	for _, bl := range benchLines {
		b.Run(bl.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bl.line)))
			for b.Loop() {
				var env struct{ Seq, Timestamp, Type, Payload json.RawMessage }
				if err := json.Unmarshal(bl.line, &env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidLine is json.Valid, the validation half of json.Unmarshal.
func BenchmarkValidLine(b *testing.B) {
	for _, bl := range benchLines {
		b.Run(bl.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bl.line)))
			for b.Loop() {
				if !json.Valid(bl.line) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
