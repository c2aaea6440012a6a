package scoring

import (
	"path"
	"slices"
	"strings"
)

// simpleCommandChanges infers the changes of one simple command.
func simpleCommandChanges(sc simpleCommand) []StateChange {
	var out []StateChange
	w := stripWrappers(sc.words)
	if len(w) > 0 {
		out = commandChanges(path.Base(w[0]), w[1:])
	}
	for _, r := range sc.redirects {
		if r != "" && !strings.HasPrefix(r, "/dev/") {
			out = append(out, StateChange{Op: ChangeModified, Path: r})
		}
	}
	return out
}

// stripWrappers drops variable assignments and wrapper commands from the
// front of a command's words.
func stripWrappers(w []string) []string {
	for len(w) > 0 {
		switch {
		case isAssignment(w[0]):
			w = w[1:]
		case w[0] == "sudo" || w[0] == "env" || w[0] == "command" || w[0] == "time" ||
			w[0] == "nohup" || w[0] == "exec" || w[0] == "builtin":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
		default:
			return w
		}
	}
	return w
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w string) bool {
	k := strings.IndexByte(w, '=')
	return k > 0 && isIdentWord(w[:k])
}

// commandChanges infers the changes of command name with arguments args.
func commandChanges(name string, args []string) []StateChange {
	switch name {
	case "mv":
		return moveChanges(args, ChangeMoved, set("-S --suffix"))
	case "cp":
		return moveChanges(args, ChangeCopied, set("-S --suffix"))
	case "ln":
		return moveChanges(args, ChangeLinked, set("-S --suffix"))
	case "install":
		valued := set("-m --mode -o --owner -g --group -S --suffix")
		if slices.Contains(args, "-d") || slices.Contains(args, "--directory") {
			return each(ChangeCreated, operands(args, valued))
		}
		return moveChanges(args, ChangeCopied, valued)
	case "rm", "rmdir", "unlink":
		return each(ChangeDeleted, operands(args, nil))
	case "touch":
		return each(ChangeCreated, operands(args, set("-d -t -r")))
	case "mkdir":
		return each(ChangeCreated, operands(args, set("-m --mode")))
	case "tee":
		return each(ChangeModified, operands(args, nil))
	case "truncate":
		return each(ChangeModified, operands(args, set("-s --size -r --reference")))
	case "chmod":
		return attributeChanges(args, ChangeMode, "RvcfHLPh")
	case "chown", "chgrp":
		return attributeChanges(args, ChangeOwner, "RvcfhHLP")
	case "dd":
		for _, a := range args {
			if f, ok := strings.CutPrefix(a, "of="); ok && f != "" && !strings.HasPrefix(f, "/dev/") {
				return []StateChange{{Op: ChangeModified, Path: f}}
			}
		}
	case "sed", "gsed":
		return sedChanges(args)
	case "git":
		return gitChanges(args)
	case "go":
		if len(args) > 0 && (args[0] == "get" || args[0] == "install") {
			return each(ChangeInstalled, packages(args[1:], nil))
		}
	case "pip", "pip3":
		return pipChanges(args)
	case "python", "python3":
		if len(args) >= 2 && args[0] == "-m" && (args[1] == "pip" || args[1] == "pip3") {
			return pipChanges(args[2:])
		}
	case "uv":
		if len(args) > 0 && args[0] == "pip" {
			return pipChanges(args[1:])
		}
		if len(args) > 0 && args[0] == "add" {
			return each(ChangeInstalled, packages(args[1:], nil))
		}
	case "npm", "pnpm":
		if len(args) > 0 && (args[0] == "install" || args[0] == "i" || args[0] == "add") {
			return each(ChangeInstalled, packages(args[1:], set("--registry --prefix")))
		}
	case "yarn", "poetry", "cargo":
		if len(args) > 0 && (args[0] == "add" || args[0] == "install" && name == "cargo") {
			return each(ChangeInstalled, packages(args[1:], set("--registry --version --path --git")))
		}
	case "apt", "apt-get", "brew", "gem", "conda", "dnf", "yum", "apk":
		if len(args) > 0 && (args[0] == "install" || name == "apk" && args[0] == "add") {
			return each(ChangeInstalled, packages(args[1:], set("-c -n --name -p --prefix -t --target-release")))
		}
	}
	return nil
}

// pipChanges handles the arguments after "pip".
func pipChanges(args []string) []StateChange {
	if len(args) == 0 || args[0] != "install" {
		return nil
	}
	return each(ChangeInstalled, packages(args[1:], set(`-r --requirement -c --constraint
		-e --editable -i --index-url --extra-index-url -t --target --prefix
		--root -f --find-links --python`)))
}

// gitChanges handles git mv, git rm, git restore and git checkout -- F.
func gitChanges(args []string) []StateChange {
	if len(args) == 0 {
		return nil
	}
	switch args[0] {
	case "mv":
		return moveChanges(args[1:], ChangeMoved, nil)
	case "rm":
		if slices.Contains(args, "--cached") {
			return nil
		}
		return each(ChangeDeleted, operands(args[1:], nil))
	case "restore":
		// --staged alone restores the index, not the files.
		if (slices.Contains(args, "--staged") || slices.Contains(args, "-S")) &&
			!slices.Contains(args, "--worktree") && !slices.Contains(args, "-W") {
			return nil
		}
		return each(ChangeModified, operands(args[1:], set("-s --source")))
	case "checkout":
		// Only "git checkout [REV] -- F..." names files for certain: without
		// "--" an operand may be a branch.
		if i := slices.Index(args, "--"); i >= 0 {
			return each(ChangeModified, operands(args[i+1:], nil))
		}
	}
	return nil
}

// attributeChanges handles chmod, chown and chgrp: options (flags made of
// the letters in flags, or long ones), the mode or owner, then the files.
// A chmod mode may itself start with "-" ("-x"), so only the listed flag
// letters make an option. With --reference the value comes from a file,
// and is reported as "like FILE".
func attributeChanges(args []string, op ChangeOp, flags string) []StateChange {
	var value string
	var files []string
	dashes := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case dashes:
			files = append(files, a)
		case a == "--":
			dashes = true
		case a == "--reference" && i+1 < len(args):
			value = "like " + args[i+1]
			i++
		case strings.HasPrefix(a, "--reference="):
			value = "like " + strings.TrimPrefix(a, "--reference=")
		case a == "--from" && i+1 < len(args):
			i++ // chown --from OWNER: a condition, not the new owner
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], flags) == "":
		case value == "":
			value = a
		default:
			files = append(files, a)
		}
	}
	var out []StateChange
	for _, f := range files {
		if f == "" || strings.Contains(f, "$(") || strings.Contains(f, "`") {
			continue
		}
		out = append(out, StateChange{Op: op, Path: f, Value: value})
	}
	return out
}

// moveChanges handles mv (op moved), cp and install (op copied) and ln
// (op linked): sources, then a destination, or -t DIR and sources. A
// destination spelled as a directory (see dirName), or one after several
// sources, is a directory: each source lands in it under its own name. A lone ln
// operand links its base name, in the current directory, to it. Options
// in valued take a value.
func moveChanges(args []string, op ChangeOp, valued map[string]struct{}) []StateChange {
	var dir string
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a == "-t" || a == "--target-directory":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--target-directory="):
			dir = strings.TrimPrefix(a, "--target-directory=")
		case strings.HasPrefix(a, "-") && a != "-":
			if _, ok := valued[a]; ok {
				i++
			}
		default:
			ops = append(ops, a)
		}
	}
	if dir == "" {
		switch {
		case len(ops) == 1 && op == ChangeLinked:
			return []StateChange{{Op: op, Path: ops[0], To: path.Base(ops[0])}}
		case len(ops) < 2:
			return nil
		}
		dir = ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		if len(ops) == 1 && !dirName(dir) {
			return []StateChange{{Op: op, Path: ops[0], To: dir}}
		}
	}
	var out []StateChange
	for _, src := range ops {
		out = append(out, StateChange{Op: op, Path: src, To: path.Join(dir, path.Base(src))})
	}
	return out
}

// dirName reports whether a destination names a directory by its
// spelling: ".", "..", "~", or ending in "/".
func dirName(p string) bool {
	return p == "." || p == ".." || p == "~" || strings.HasSuffix(p, "/")
}

// sedChanges returns the files sed -i edits in place, if it is in-place.
func sedChanges(args []string) []StateChange {
	inPlace, script := false, false
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case a == "-e" || a == "--expression" || a == "-f" || a == "--file":
			script = true
			i++
		case strings.HasPrefix(a, "--expression=") || strings.HasPrefix(a, "--file="):
			script = true
		case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			inPlace = true
		case a == "-i" || a == "-I":
			inPlace = true
			// BSD sed takes the backup suffix as the next word, often ''.
			if i+1 < len(args) && args[i+1] == "" {
				i++
			}
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags := a[1:]
			if k := strings.IndexAny(flags, "iI"); k >= 0 && strings.Trim(flags[:k], "nErsuz") == "" {
				inPlace = true
			}
		case a == "":
		default:
			files = append(files, a)
		}
	}
	if !inPlace {
		return nil
	}
	if !script && len(files) > 0 {
		files = files[1:] // the first operand is the script
	}
	return each(ChangeModified, files)
}

// operands returns the non-option arguments, skipping the value of each
// option in valued.
func operands(args []string, valued map[string]struct{}) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			if _, ok := valued[a]; ok {
				i++
			}
		case a == "" || strings.Contains(a, "$(") || strings.Contains(a, "`"):
			// Empty, or computed by a command substitution: unknown.
		default:
			out = append(out, a)
		}
	}
	return out
}

// packages returns the package operands of an install command, dropping
// local directories such as "." and requirement files given by option.
func packages(args []string, valued map[string]struct{}) []string {
	var out []string
	for _, a := range operands(args, valued) {
		if a == "." || a == ".." || strings.HasSuffix(a, "/...") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// each makes one change of op per path.
func each(op ChangeOp, paths []string) []StateChange {
	var out []StateChange
	for _, p := range paths {
		out = append(out, StateChange{Op: op, Path: p})
	}
	return out
}
