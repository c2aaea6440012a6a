package scoring

import (
	"slices"
	"testing"
)

func TestStateChangesShell(t *testing.T) {
	t.Parallel()
	c := func(op ChangeOp, p string) StateChange { return StateChange{Op: op, Path: p} }
	mv := func(from, to string) StateChange { return StateChange{Op: ChangeMoved, Path: from, To: to} }
	cp := func(from, to string) StateChange { return StateChange{Op: ChangeCopied, Path: from, To: to} }
	mode := func(m, p string) StateChange { return StateChange{Op: ChangeMode, Path: p, Value: m} }
	tests := []struct {
		name    string
		command string
		want    []StateChange
	}{
		{"mv", "mv a.py b.py", []StateChange{mv("a.py", "b.py")}},
		{"git mv", "git mv -f src/a.py src/b.py", []StateChange{mv("src/a.py", "src/b.py")}},
		{"mv several into dir", "mv a.py b.py lib/", []StateChange{mv("a.py", "lib/a.py"), mv("b.py", "lib/b.py")}},
		{"mv -t", "mv -t lib a.py", []StateChange{mv("a.py", "lib/a.py")}},
		{"rm each", "rm -rf build dist", []StateChange{c(ChangeDeleted, "build"), c(ChangeDeleted, "dist")}},
		{"git rm and rmdir", "git rm old.py && rmdir empty", []StateChange{c(ChangeDeleted, "old.py"), c(ChangeDeleted, "empty")}},
		{"git rm --cached changes nothing", "git rm --cached secret.env", nil},
		{"touch and mkdir", "mkdir -p src/pkg && touch src/pkg/__init__.py", []StateChange{c(ChangeCreated, "src/pkg"), c(ChangeCreated, "src/pkg/__init__.py")}},
		{"cp", "cp -r template/ app", []StateChange{cp("template/", "app")}},
		{"cp several into dir", "cp a.txt b.txt backup", []StateChange{cp("a.txt", "backup/a.txt"), cp("b.txt", "backup/b.txt")}},
		{"cp into a dir ending in slash", "cp -p conf/a.ini /etc/app/", []StateChange{cp("conf/a.ini", "/etc/app/a.ini")}},
		{"cp here", "cp ../shared/a.env .", []StateChange{cp("../shared/a.env", "a.env")}},
		{"mv into a dir ending in slash", "mv -v data/x.json archive/", []StateChange{mv("data/x.json", "archive/x.json")}},
		{"mv backup suffix takes a value", "mv -S .orig a.cfg b.cfg", []StateChange{mv("a.cfg", "b.cfg")}},
		{"install with mode", "install -m 755 build/app /usr/local/bin/app", []StateChange{cp("build/app", "/usr/local/bin/app")}},
		{"install -d", "install -d -m 700 /var/lib/app", []StateChange{c(ChangeCreated, "/var/lib/app")}},
		{"ln -s", "ln -sf releases/v2 current", []StateChange{{Op: ChangeLinked, Path: "releases/v2", To: "current"}}},
		{"ln one operand", "ln -s /opt/tool/bin/tool", []StateChange{{Op: ChangeLinked, Path: "/opt/tool/bin/tool", To: "tool"}}},
		{"chmod", "chmod 000 scripts/deploy.sh; chmod -R u+x bin tools", []StateChange{mode("000", "scripts/deploy.sh"), mode("u+x", "bin"), mode("u+x", "tools")}},
		{"chmod mode with a dash", "chmod -x run.sh", []StateChange{mode("-x", "run.sh")}},
		{"chmod --reference", "chmod --reference=a.sh b.sh", []StateChange{mode("like a.sh", "b.sh")}},
		{"chown and chgrp", "sudo chown -R app:app /srv/app && chgrp staff notes.txt", []StateChange{
			{Op: ChangeOwner, Path: "/srv/app", Value: "app:app"}, {Op: ChangeOwner, Path: "notes.txt", Value: "staff"}}},
		{"truncate", "truncate -s 0 logs/app.log", []StateChange{c(ChangeModified, "logs/app.log")}},
		{"dd of=", "dd if=/dev/zero of=disk.img bs=1M count=4", []StateChange{c(ChangeModified, "disk.img")}},
		{"git restore and checkout --", "git restore src/a.py && git checkout HEAD~1 -- b.py", []StateChange{c(ChangeModified, "src/a.py"), c(ChangeModified, "b.py")}},
		{"git restore --staged changes no file", "git restore --staged a.py", nil},
		{"git checkout a branch changes no file", "git checkout main", nil},
		{"words that only contain a command name", "echo mv a b; grep -r 'rm -rf' docs; ls chmod_notes", nil},
		{"redirects", "echo hi > out.txt 2>&1; make 2> err.log >> build.log", []StateChange{c(ChangeModified, "out.txt"), c(ChangeModified, "err.log"), c(ChangeModified, "build.log")}},
		{"redirect without space and &>", "ls>list.txt; run.sh &> all.log", []StateChange{c(ChangeModified, "list.txt"), c(ChangeModified, "all.log")}},
		{"dev null ignored", "ls > /dev/null 2>/dev/null", nil},
		{"input redirect reads", "sort < in.txt", nil},
		{"tee", "echo x | tee -a notes.md log.txt", []StateChange{c(ChangeModified, "notes.md"), c(ChangeModified, "log.txt")}},
		{"sed -i", "sed -i 's/a/b/g' f1.py f2.py", []StateChange{c(ChangeModified, "f1.py"), c(ChangeModified, "f2.py")}},
		{"sed -i with -e and BSD suffix", "sed -i '' -e 's/a/b/' h.py", []StateChange{c(ChangeModified, "h.py")}},
		{"sed -i.bak", "sed -i.bak -E 's/x/y/' conf.ini", []StateChange{c(ChangeModified, "conf.ini")}},
		{"sed without -i changes nothing", "sed -n 's/x/y/p' g.py", nil},
		{"pip install", "pip install -U requests 'flask>=2' -r req.txt", []StateChange{c(ChangeInstalled, "requests"), c(ChangeInstalled, "flask>=2")}},
		{"python -m pip install -e", "python3 -m pip install -e . numpy", []StateChange{c(ChangeInstalled, "numpy")}},
		{"npm install", "npm install --save-dev @types/node typescript", []StateChange{c(ChangeInstalled, "@types/node"), c(ChangeInstalled, "typescript")}},
		{"npm install from lockfile", "npm install", nil},
		{"apt-get install", "sudo apt-get install -y curl git", []StateChange{c(ChangeInstalled, "curl"), c(ChangeInstalled, "git")}},
		{"go get", "go get github.com/x/y@v1.2.3", []StateChange{c(ChangeInstalled, "github.com/x/y@v1.2.3")}},
		{"go install local pattern", "go install ./...", nil},
		{"quoted operators are words", `echo 'a > b' "c && rm d"`, nil},
		{"quoted path with space", `rm "my file.txt"`, []StateChange{c(ChangeDeleted, "my file.txt")}},
		{"escaped space", `touch my\ file.txt`, []StateChange{c(ChangeCreated, "my file.txt")}},
		{"heredoc body skipped", "cat > new.py <<'EOF'\nimport os\nrm -rf /\nEOF\ntouch done.txt", []StateChange{c(ChangeModified, "new.py"), c(ChangeCreated, "done.txt")}},
		{"here-string is input", "cat <<< hello", nil},
		{"comments skipped", "ls # rm -rf everything\ntouch a", []StateChange{c(ChangeCreated, "a")}},
		{"wrappers and assignments stripped", "cd /tmp && FOO=1 sudo -E rm x.log", []StateChange{c(ChangeDeleted, "x.log")}},
		{"command substitution operands skipped", "rm $(find . -name '*.pyc') `ls`", nil},
		{"subshell", "(cd sub && touch x)", []StateChange{c(ChangeCreated, "x")}},
		{"duplicates once", "touch a && touch a", []StateChange{c(ChangeCreated, "a")}},
		{"read-only commands", "ls -la && cat a.py | grep foo && git status", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := StateChanges("bash", nil, tt.command)
			if !slices.Equal(got, tt.want) {
				t.Errorf("StateChanges(bash, %q)\n got %v\nwant %v", tt.command, got, tt.want)
			}
		})
	}
}

func TestParseShell(t *testing.T) {
	t.Parallel()
	type cmd = simpleCommand
	tests := []struct {
		line string
		want []simpleCommand
	}{
		{"", nil},
		{"ls -la", []cmd{{words: []string{"ls", "-la"}}}},
		{"a && b || c; d | e & f", []cmd{
			{words: []string{"a"}}, {words: []string{"b"}}, {words: []string{"c"}},
			{words: []string{"d"}}, {words: []string{"e"}}, {words: []string{"f"}}}},
		{`echo 'it''s' "a \"b\" $x" c\ d`, []cmd{{words: []string{"echo", "its", `a "b" $x`, "c d"}}}},
		{"cmd >out 2>>err 2>&1 &>all >|force", []cmd{{words: []string{"cmd"}, redirects: []string{"out", "err", "all", "force"}}}},
		{"x2>y", []cmd{{words: []string{"x2"}, redirects: []string{"y"}}}},
		{"sort < in > out", []cmd{{words: []string{"sort"}, redirects: []string{"out"}}}},
		{"cat <<-END > f\n\tbody; rm x\n\tEND\nls", []cmd{{words: []string{"cat"}, redirects: []string{"f"}}, {words: []string{"ls"}}}},
		{"echo $(rm a; b) `c`", []cmd{{words: []string{"echo", "$(rm a; b)", "`c`"}}}},
		{"echo a # rm b", []cmd{{words: []string{"echo", "a"}}}},
		{"echo a#b", []cmd{{words: []string{"echo", "a#b"}}}},
		{"'unterminated", []cmd{{words: []string{"unterminated"}}}},
	}
	for _, tt := range tests {
		got := parseShell(tt.line)
		if !slices.EqualFunc(got, tt.want, func(a, b simpleCommand) bool {
			return slices.Equal(a.words, b.words) && slices.Equal(a.redirects, b.redirects)
		}) {
			t.Errorf("parseShell(%q)\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}
