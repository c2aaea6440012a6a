package scoring

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFailureText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		output string
		want   bool
	}{
		// Failures.
		{"python traceback", "Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: bad", true},
		{"no such file", "cat: missing.txt: No such file or directory", true},
		{"command not found", "bash: pytest: command not found", true},
		{"permission denied any case", "open /etc/shadow: PERMISSION DENIED", true},
		{"connection refused", "dial tcp 127.0.0.1:5432: connect: connection refused", true},
		{"git fatal", "fatal: not a git repository (or any of the parent directories): .git", true},
		{"error at line start", "error: failed to push some refs", true},
		{"Error at line start, indented", "   Error: Cannot find module 'left-pad'", true},
		{"rust error code", "error[E0308]: mismatched types", true},
		{"npm ERR", "npm ERR! code ERESOLVE", true},
		{"exception line", "ValueError: invalid literal for int() with base 10: 'x'", true},
		{"pytest FAILED line", "FAILED tests/test_a.py::test_x - AssertionError", true},
		{"pytest summary", "========= 1 failed, 12 passed in 0.31s =========", true},
		{"unittest failures", "FAILED (failures=2)", true},
		{"go test fail", "--- FAIL: TestParse (0.00s)\nFAIL\nexit status 1", true},
		{"go fail package line", "FAIL\tgithub.com/x/y\t0.012s", true},
		{"exit status non-zero", "process ended: exit status 2", true},
		{"exit code non-zero", "Process finished with exit code 137", true},
		{"exit code in json", `{"exit_code": 1, "stdout": ""}`, true},
		{"exit status marker", "some output\n[exit status 1]", true},
		{"exited with code", "container exited with code 3", true},
		{"panic", "panic: runtime error: index out of range [3] with length 3", true},
		{"path not found", "src/config.yaml not found", true},
		{"dash not found", "sh: 1: pytest: not found", true},
		{"curl error", "curl: (7) Failed to connect to localhost port 8080", true},
		{"mypy errors", "Found 3 errors in 2 files (checked 10 source files)", true},
		{"go compile error", "./main.go:12:5: undefined: foo", true},
		{"indented go test failure", "    parse_test.go:31: got 1, want 2", true},
		{"segfault", "Segmentation fault (core dumped)", true},
		{"make failure", "make: *** [Makefile:12: test] Error 2", true},

		// Not failures.
		{"empty", "", false},
		{"no errors found", "Lint finished: no errors found.", false},
		{"zero failed", "===== 12 passed, 0 failed in 0.31s =====", false},
		{"errors zero", "Errors: 0, Warnings: 2", false},
		{"exit status zero", "exit status 0", false},
		{"exit code zero", "Process finished with exit code 0", false},
		{"prose about errors", "I added error handling so the parser reports errors clearly.", false},
		{"word error mid-line", "the function returns an error: nil on success", false},
		{"failed lower-case prose", "the earlier attempt failed because of a typo", false},
		{"passing tests", "ok  \tgithub.com/x/y\t0.01s\nPASS", false},
		{"plain not found prose", "the key was not found in the cache, so we compute it", false},
		{"grep output of go code", "main.go:12:\tif err != nil {", false},
		{"pytest success", "============ 5 passed in 0.12s ============", false},
		{"exit_code zero json", `{"exit_code": 0}`, false},
		{"errorless warning", "warning: unused variable 'x'", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FailureText(tt.output); got != tt.want {
				t.Errorf("FailureText(%q) = %v, want %v", tt.output, got, tt.want)
			}
		})
	}
}

func TestErrorLine(t *testing.T) {
	t.Parallel()
	pytest := `tests/test_a.py F                                   [100%]

    def test_x():
>       assert parse("1") == 2
E       AssertionError: assert 1 == 2
E        +  where 1 = parse('1')

tests/test_a.py:3: AssertionError
=========================== short test summary info ============================
FAILED tests/test_a.py::test_x - AssertionError: assert 1 == 2
========================= 1 failed in 0.05s =========================`
	gotest := "--- FAIL: TestParse (0.00s)\n    parse_test.go:31: got 1, want 2\nFAIL\nexit status 1\nFAIL\tgithub.com/x/y\t0.01s"
	traceback := "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    main()\nKeyError: 'user_id'\n"
	tests := []struct {
		name   string
		output string
		maxLen int
		want   string
	}{
		{"none", "all good\n5 passed", 80, ""},
		{"empty", "", 80, ""},
		{"traceback last line", traceback, 80, "KeyError: 'user_id'"},
		{"pytest exception wins over details and summary", pytest, 80, "AssertionError: assert 1 == 2"},
		{"pytest detail wins over summary", "E       assert 1 == 2\nFAILED tests/test_a.py::test_x\n1 failed", 80, "assert 1 == 2"},
		{"detail line", "cat: x.txt: No such file or directory\nexit status 1", 80, "cat: x.txt: No such file or directory"},
		{"go test message wins over exit status", gotest, 80, "parse_test.go:31: got 1, want 2"},
		{"curl", "  % Total    % Received\ncurl: (7) Failed to connect to localhost port 8080: Connection refused\n", 80,
			"curl: (7) Failed to connect to localhost port 8080: Connection refused"},
		{"Error prefix", "building...\nError: ENOENT: no such file or directory, open 'x.json'\ndone", 80,
			"Error: ENOENT: no such file or directory, open 'x.json'"},
		{"only weak lines", "running\nexit status 2", 80, "exit status 2"},
		{"last strong line", "error: first\nsome text\nfatal: second\n", 80, "fatal: second"},
		{"cut with ellipsis", "AssertionError: expected the cache to evict key_a first", 20, "AssertionError: exp…"},
		{"cut counts runes", "Error: déjà vu déjà vu", 10, "Error: dé…"},
		{"no limit", "Error: " + strings.Repeat("x", 300), 0, "Error: " + strings.Repeat("x", 300)},
		{"limit one", "Error: boom", 1, "…"},
		{"exactly max", "Error: boom", 11, "Error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ErrorLine(tt.output, tt.maxLen)
			if got != tt.want {
				t.Errorf("ErrorLine(%q, %d) = %q, want %q", tt.output, tt.maxLen, got, tt.want)
			}
			if tt.maxLen > 0 && utf8.RuneCountInString(got) > tt.maxLen {
				t.Errorf("ErrorLine returned %d runes, more than %d", utf8.RuneCountInString(got), tt.maxLen)
			}
		})
	}
}
