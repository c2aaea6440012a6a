package scoring

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestKindOfTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want ToolKind
	}{
		{"read_file", ToolRead},
		{"ReadFile", ToolRead},
		{"cat", ToolRead},
		{"view_file", ToolRead},
		{"open_file", ToolRead},
		{"file_reader", ToolRead},
		{"write_file", ToolWrite},
		{"edit_file", ToolWrite},
		{"create_file", ToolWrite},
		{"apply_patch", ToolWrite},
		{"str_replace_based_edit_tool", ToolWrite},
		{"save", ToolWrite},
		{"NotebookEdit", ToolWrite},
		{"read_write", ToolWrite},     // write before read
		{"search_replace", ToolWrite}, // write before search
		{"bash", ToolShell},
		{"Bash", ToolShell},
		{"shell", ToolShell},
		{"exec_command", ToolShell},
		{"run_terminal_cmd", ToolShell},
		{"execute", ToolShell},
		{"grep", ToolSearch},
		{"Grep", ToolSearch},
		{"codebase_search", ToolSearch},
		{"find_files", ToolSearch},
		{"sql_query", ToolSearch},
		{"web_search", ToolSearch}, // search before http
		{"ls", ToolList},
		{"list_dir", ToolList},
		{"Glob", ToolList},
		{"directory_tree", ToolList},
		{"read_dir", ToolList}, // list before read
		{"http_request", ToolHTTP},
		{"fetch", ToolHTTP},
		{"WebFetch", ToolHTTP},
		{"curl", ToolHTTP},
		{"get_url", ToolHTTP},
		{"browse", ToolHTTP},
		{"open_url", ToolHTTP}, // http before read
		{"readfile", ToolRead}, // run-together names fall back to substrings
		{"websearch", ToolSearch},
		{"listdir", ToolList},
		{"think", ToolOther},
		{"Task", ToolOther},
		{"", ToolOther},
		{"tools", ToolOther},      // "ls" is only a whole word
		{"categorize", ToolOther}, // "cat" is only a whole word
	}
	for _, tt := range tests {
		if got := KindOfTool(tt.name); got != tt.want {
			t.Errorf("KindOfTool(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestStateChangeString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    StateChange
		want string
	}{
		{StateChange{Op: ChangeCreated, Path: "src/a.py"}, "created src/a.py"},
		{StateChange{Op: ChangeModified, Path: "a.py"}, "modified a.py"},
		{StateChange{Op: ChangeDeleted, Path: "build"}, "deleted build"},
		{StateChange{Op: ChangeMoved, Path: "a.py", To: "b.py"}, "moved a.py → b.py"},
		{StateChange{Op: ChangeInstalled, Path: "requests"}, "installed requests"},
		{StateChange{Op: ChangeCreated}, "created"},
		{StateChange{Op: ChangeCopied, Path: "a.cfg", To: "b.cfg"}, "copied a.cfg → b.cfg"},
		{StateChange{Op: ChangeLinked, Path: "releases/v2", To: "current"}, "linked current → releases/v2"},
		{StateChange{Op: ChangeMode, Path: "run.sh", Value: "+x"}, "chmod +x run.sh"},
		{StateChange{Op: ChangeOwner, Path: "/srv", Value: "app:app"}, "chown app:app /srv"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestStateChanges(t *testing.T) {
	t.Parallel()
	c := func(op ChangeOp, p string) StateChange { return StateChange{Op: op, Path: p} }
	mv := func(from, to string) StateChange { return StateChange{Op: ChangeMoved, Path: from, To: to} }
	tests := []struct {
		name    string
		tool    string
		args    string
		command string
		want    []StateChange
	}{
		// Write tools.
		{"write tool modifies", "write_file", `{"path":"src/a.py","content":"x"}`, "", []StateChange{c(ChangeModified, "src/a.py")}},
		{"create tool creates", "create_file", `{"file_path":"src/a.py"}`, "", []StateChange{c(ChangeCreated, "src/a.py")}},
		{"new in name creates", "write_new_file", `{"filename":"notes.md"}`, "", []StateChange{c(ChangeCreated, "notes.md")}},
		{"mode create", "write", `{"target":"x.txt","mode":"create"}`, "", []StateChange{c(ChangeCreated, "x.txt")}},
		{"editor create", "str_replace_based_edit_tool", `{"command":"create","path":"/w/a.py","file_text":"x"}`, "", []StateChange{c(ChangeCreated, "/w/a.py")}},
		{"editor str_replace", "str_replace_based_edit_tool", `{"command":"str_replace","path":"/w/a.py"}`, "", []StateChange{c(ChangeModified, "/w/a.py")}},
		{"editor view changes nothing", "str_replace_based_edit_tool", `{"command":"view","path":"/w/a.py"}`, "", nil},
		{"path key precedence", "edit_file", `{"file":"b.py","path":"a.py"}`, "", []StateChange{c(ChangeModified, "a.py")}},
		{"delete tool", "delete_file", `{"path":"old.py"}`, "", []StateChange{c(ChangeDeleted, "old.py")}},
		{"rename tool", "rename_file", `{"path":"a.py","new_path":"b.py"}`, "", []StateChange{mv("a.py", "b.py")}},
		{"read tool changes nothing", "read_file", `{"path":"a.py"}`, "", nil},
		{"write tool without path", "write_file", `{"content":"x"}`, "", nil},
		{"invalid args ignored", "write_file", `{"path":`, "", nil},
		{"non-object args ignored", "write_file", `["a.py"]`, "", nil},
		{"non-string path ignored", "write_file", `{"path":42}`, "", nil},
		{"apply_patch envelope", "apply_patch", `{"input":"*** Begin Patch\n*** Add File: n.py\n+x\n*** Update File: m.py\n*** Move to: q.py\n@@\n*** Update File: u.py\n*** Delete File: d.py\n*** End Patch"}`, "",
			[]StateChange{c(ChangeCreated, "n.py"), mv("m.py", "q.py"), c(ChangeModified, "u.py"), c(ChangeDeleted, "d.py")}},
		{"unified diff", "apply_patch", `{"patch":"--- a/x.go\n+++ b/x.go\n@@\n--- /dev/null\n+++ b/new.go\n--- a/gone.go\n+++ /dev/null\n"}`, "",
			[]StateChange{c(ChangeModified, "x.go"), c(ChangeCreated, "new.go"), c(ChangeDeleted, "gone.go")}},

		// Shell commands reached through the tool call; see shell_test.go.
		{"command from args string", "shell", `{"command":"touch z && mv z w"}`, "", []StateChange{c(ChangeCreated, "z"), mv("z", "w")}},
		{"command from argv with sh -c", "shell", `{"command":["bash","-lc","rm -f q"]}`, "", []StateChange{c(ChangeDeleted, "q")}},
		{"command from plain argv", "exec", `{"cmd":["rm","-f","my file"]}`, "", []StateChange{c(ChangeDeleted, "my file")}},
		{"command parameter wins over args", "shell", `{"command":"touch a"}`, "touch b", []StateChange{c(ChangeCreated, "b")}},
		{"invalid args still use command", "shell", `not json`, "touch q", []StateChange{c(ChangeCreated, "q")}},
		{"non-shell tool with command", "custom", `{}`, "rm x", []StateChange{c(ChangeDeleted, "x")}},
		{"write tool args command is not shell", "str_replace_based_edit_tool", `{"command":"insert","path":"a.py"}`, "", []StateChange{c(ChangeModified, "a.py")}},
		{"nothing", "bash", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := StateChanges(tt.tool, []byte(tt.args), tt.command)
			if !slices.Equal(got, tt.want) {
				t.Errorf("StateChanges(%q, %q, %q)\n got %v\nwant %v", tt.tool, tt.args, tt.command, got, tt.want)
			}
		})
	}
}

func TestArgText(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"path":"src/a.py","content":"big body","mode":"w","n":3}`, "w\nsrc/a.py\n"},
		{`{"command":"git rm -q data/x.json"}`, "git rm -q data/x.json\n"},
		{`null`, "null"},
		{`["a"]`, `["a"]`},
		{``, ``},
		// Nested values count, keys in order at each level; a nested
		// content is left out too; numbers and booleans are not names.
		{`{"reservation_id":"XEWRD9","flights":[{"flight_number":"HAT030","date":"2024-05-13"},{"flight_number":"HAT052","date":"2024-05-21"}],"cabin":"economy","paid":true,"n":2}`,
			"economy\n2024-05-13\nHAT030\n2024-05-21\nHAT052\nXEWRD9\n"},
		{`{"edits":[{"path":"a.go","content":"package a"}],"paths":["b.go", "", "c.go"]}`, "a.go\nb.go\nc.go\n"},
		{`{"a":[[["deep"]]]}`, "deep\n"},
		{`{"a":[[[[[[[[[["too deep"]]]]]]]]]]}`, ""},
	}
	for _, c := range cases {
		if got := ArgText([]byte(c.in)); got != c.want {
			t.Errorf("ArgText(%s) = %q, want %q", c.in, got, c.want)
		}
	}
	// A call carrying hundreds of values gives its first maxArgStrings.
	rows := make([]string, 300)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"id":"row-%d"}`, i)
	}
	got := ArgText([]byte(`{"rows":[` + strings.Join(rows, ",") + `],"table":"events"}`))
	if lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n"); len(lines) != maxArgStrings || lines[0] != "row-0" || lines[len(lines)-1] != fmt.Sprintf("row-%d", maxArgStrings-1) {
		t.Errorf("ArgText of 300 rows gave %d lines, %q to %q; want the first %d", len(lines), lines[0], lines[len(lines)-1], maxArgStrings)
	}
}
