package scoring

import (
	"strings"
	"unicode"
)

// classify returns the most specific entity a trimmed token is, if any.
// Most tokens are plain words, one capital at most and that first ("the",
// "Error"): of the kinds below, only a well-known file name can be one,
// since every other kind needs an inner capital, a digit or punctuation.
// They are answered without the chain.
func classify(tok string) (Entity, bool) {
	if plainWord(tok) {
		if _, ok := wellKnownFiles[tok]; ok {
			return Entity{EntityFile, tok}, true
		}
		return Entity{}, false
	}
	return classifyToken(tok)
}

// plainWord reports whether tok is ASCII letters, lower case but for the
// first.
func plainWord(tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c < 'a' || c > 'z' {
			if i > 0 || c < 'A' || c > 'Z' {
				return false
			}
		}
	}
	return true
}

// classifyToken is classify without the shortcut for plain words.
func classifyToken(tok string) (Entity, bool) {
	if tok == "" {
		return Entity{}, false
	}
	if n := urlLen(tok); n > 0 {
		return Entity{EntityURL, tok[:n]}, true
	}
	if isHostPort(tok) {
		return Entity{EntityHostPort, tok}, true
	}
	if isHTTPVersion(tok) {
		return Entity{}, false
	}
	name := stripLineSuffix(tok)
	if p, ok := asPath(name); ok {
		return Entity{EntityPath, p}, true
	}
	if isFileName(name) {
		return Entity{EntityFile, name}, true
	}
	if isErrorCode(tok) {
		return Entity{EntityErrorCode, tok}, true
	}
	if isVersion(tok) || isIdentifier(tok) || isRecordCode(tok) {
		return Entity{EntityIdent, tok}, true
	}
	return Entity{}, false
}

// isRecordCode reports whether tok is the code of a record a tool returns
// or takes: capital letters and digits, 5 to 20 of them, at least two of
// each (a booking ZFA04Y, a flight HAT136, an order A7X9K2). Such codes
// name one thing, like an identifier; acronyms and numbers alone do not.
func isRecordCode(tok string) bool {
	if len(tok) < 5 || len(tok) > 20 {
		return false
	}
	letters, digits := 0, 0
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c >= 'A' && c <= 'Z':
			letters++
		case c >= '0' && c <= '9':
			digits++
		default:
			return false
		}
	}
	return letters >= 2 && digits >= 2
}

// stripLineSuffix drops a ":line" or ":line:col" suffix from a token that
// names a file ("core.py:42:5" → "core.py").
func stripLineSuffix(tok string) string {
	t := tok
	for range 2 {
		k := strings.LastIndexByte(t, ':')
		if k <= 0 || k == len(t)-1 || !allDigits(t[k+1:]) {
			break
		}
		t = t[:k]
	}
	if t != tok && strings.ContainsAny(t, "./") {
		return t
	}
	return tok
}

// isHTTPVersion reports whether tok is "HTTP/1.1", "HTTP/2" and the like.
func isHTTPVersion(tok string) bool {
	return len(tok) > 5 && hasPrefixFold(tok, "http/") && tok[5] >= '0' && tok[5] <= '9'
}

// isStatusCode reports whether tok is an HTTP error status, 400-599.
func isStatusCode(tok string) bool {
	return len(tok) == 3 && (tok[0] == '4' || tok[0] == '5') && allDigits(tok)
}

// isHostPort reports whether tok is host:port with host localhost, an IPv4
// address or a dotted host name that is not a file name, and port 1-65535.
func isHostPort(tok string) bool {
	k := strings.LastIndexByte(tok, ':')
	if k <= 0 {
		return false
	}
	host, port := tok[:k], tok[k+1:]
	if len(port) == 0 || len(port) > 5 || !allDigits(port) || port[0] == '0' {
		return false
	}
	if p := atoi(port); p < 1 || p > 65535 {
		return false
	}
	if strings.EqualFold(host, "localhost") || isIPv4(host) {
		return true
	}
	if strings.IndexByte(host, '.') < 0 {
		return false
	}
	last := ""
	for l := range strings.SplitSeq(host, ".") {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			if !isAlnumByte(l[i]) && l[i] != '-' {
				return false
			}
		}
		last = l
	}
	if !hasLetter(last) {
		return false
	}
	_, isExt := fileExtensions[strings.ToLower(last)]
	return !isExt
}

// isIPv4 reports whether s is a dotted-quad IPv4 address.
func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 3 || !allDigits(p) || atoi(p) > 255 {
			return false
		}
	}
	return true
}

// asPath reports whether tok is a file path and returns it without a
// trailing slash.
func asPath(tok string) (string, bool) {
	if strings.IndexByte(tok, '/') < 0 || strings.Contains(tok, "//") {
		return "", false
	}
	for _, r := range tok {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-~@+/%", r)) {
			return "", false
		}
	}
	rooted := strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "~/") ||
		strings.HasPrefix(tok, "./") || strings.HasPrefix(tok, "../")
	trailing := len(tok) > 1 && strings.HasSuffix(tok, "/")
	p := strings.TrimRight(tok, "/")
	body := strings.TrimLeft(p, "/")
	if body == "" || !hasLetter(body) {
		return "", false
	}
	if rooted {
		return p, true
	}
	if strings.IndexByte(p, '~') >= 0 {
		return "", false
	}
	first, _, _ := strings.Cut(body, "/")
	last := body[strings.LastIndexByte(body, '/')+1:]
	switch {
	case strings.Count(body, "/") >= 2, trailing, hasExtension(last):
		return p, true
	}
	if _, ok := commonDirs[strings.ToLower(first)]; ok {
		return p, true
	}
	if strings.ContainsAny(body, "_-.0123456789") {
		return p, true
	}
	return "", false
}

// hasExtension reports whether a path segment ends in ".ext" with a letter
// in ext and a name before it.
func hasExtension(seg string) bool {
	k := strings.LastIndexByte(seg, '.')
	if k <= 0 || k == len(seg)-1 {
		return false
	}
	ext := seg[k+1:]
	return len(ext) <= 10 && hasLetter(ext)
}

// isFileName reports whether tok is a bare file name with a known extension
// or a well-known file name.
func isFileName(tok string) bool {
	if _, ok := wellKnownFiles[tok]; ok {
		return true
	}
	if strings.HasPrefix(tok, "Dockerfile.") || strings.HasPrefix(tok, ".env.") {
		return true
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if !isAlnumByte(c) && c != '_' && c != '-' && c != '.' && c != '@' && c != '+' {
			return false
		}
	}
	if strings.HasPrefix(tok, ".") && strings.Count(tok, ".") == 1 {
		// A dotfile: .bashrc, .npmrc, ...
		name := tok[1:]
		return len(name) >= 3 && strings.HasSuffix(name, "rc") && isLowerWord(name)
	}
	k := strings.LastIndexByte(tok, '.')
	if k <= 0 || k == len(tok)-1 {
		return false
	}
	stem, ext := strings.TrimLeft(tok[:k], "."), strings.ToLower(tok[k+1:])
	if _, ok := fileExtensions[ext]; !ok {
		return false
	}
	if !hasLetter(stem) && !hasDigit(stem) {
		return false
	}
	// One-letter extensions (.c, .h) need a real stem: "a.c" is more likely
	// an abbreviation than a file.
	return len(ext) > 1 || len(stem) >= 2
}

// isErrorCode reports whether tok is an error code, errno name or exception
// class name.
func isErrorCode(tok string) bool {
	if _, ok := errnoNames[tok]; ok {
		return true
	}
	for _, prefix := range []string{"E", "TS", "CS"} {
		if rest, ok := strings.CutPrefix(tok, prefix); ok && len(rest) >= 3 && len(rest) <= 5 && allDigits(rest) {
			return true
		}
	}
	for _, prefix := range []string{"ERR_", "ERROR_"} {
		if rest, ok := strings.CutPrefix(tok, prefix); ok && rest != "" && isScreamingRest(rest) {
			return true
		}
	}
	// Exception classes, possibly module-qualified.
	last := ""
	for seg := range strings.SplitSeq(tok, ".") {
		if !isIdentWord(seg) {
			return false
		}
		last = seg
	}
	if last[0] < 'A' || last[0] > 'Z' {
		return false
	}
	for _, suffix := range []string{"Error", "Exception"} {
		if strings.HasSuffix(last, suffix) && len(last) > len(suffix) {
			return true
		}
	}
	return false
}

// isScreamingRest reports whether s is made of capitals, digits and
// underscores and has a capital.
func isScreamingRest(s string) bool {
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return letter
}

// isVersion reports whether tok is a v-prefixed version such as v1.7.0 or
// v8.20-1c1: "v", numbers separated by dots (at least two), and an optional
// suffix after '-', '+', '.' or '_'.
func isVersion(tok string) bool {
	if len(tok) < 4 || (tok[0] != 'v' && tok[0] != 'V') {
		return false
	}
	i, dots := 1, 0
	for {
		j := i
		for j < len(tok) && tok[j] >= '0' && tok[j] <= '9' {
			j++
		}
		if j == i {
			return false
		}
		i = j
		if i < len(tok) && tok[i] == '.' && i+1 < len(tok) && tok[i+1] >= '0' && tok[i+1] <= '9' {
			dots++
			i++
			continue
		}
		break
	}
	if dots == 0 {
		return false
	}
	if i == len(tok) {
		return true
	}
	if !strings.ContainsRune("-+._", rune(tok[i])) || i+1 == len(tok) {
		return false
	}
	for k := i + 1; k < len(tok); k++ {
		c := tok[k]
		if !isAlnumByte(c) && c != '.' && c != '-' && c != '+' && c != '_' {
			return false
		}
	}
	return true
}

// isIdentifier reports whether tok is clearly a code name: snake_case or
// SCREAMING_CASE with an underscore, camelCase/PascalCase with an inner
// capital, or a dotted path of identifiers each at least two characters long.
func isIdentifier(tok string) bool {
	if strings.IndexByte(tok, '.') >= 0 {
		for seg := range strings.SplitSeq(tok, ".") {
			if len(seg) < 2 || !isIdentWord(seg) {
				return false
			}
		}
		return hasLetter(tok)
	}
	if !isIdentWord(tok) || !hasLetter(tok) {
		return false
	}
	if strings.IndexByte(tok, '_') >= 0 {
		return len(tok) >= 3
	}
	return hasInnerCapital(tok)
}

// isIdentWord reports whether s is an ASCII identifier: a letter or '_'
// followed by letters, digits and '_'.
func isIdentWord(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnumByte(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

// hasLetter reports whether s contains a letter.
func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// hasDigit reports whether s contains an ASCII digit.
func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}

// isLowerWord reports whether s is made of ASCII lower-case letters, digits,
// '_' and '-'.
func isLowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// allDigits reports whether s is non-empty and all ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// atoi parses a short string of ASCII digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// set builds a read-only lookup set from a whitespace-separated list.
func set(list string) map[string]struct{} {
	words := strings.Fields(list)
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

// fileExtensions are the lower-case extensions that make a bare name a file.
var fileExtensions = set(`
	py pyi pyc ipynb go mod sum rs c h cc cpp cxx hpp hh java kt kts scala sbt
	groovy gradle clj swift dart js mjs cjs jsx ts tsx vue svelte rb erb php pl
	lua ex exs erl hrl hs ml cs fs vb sh bash zsh fish ps1 bat cmd
	sql graphql proto thrift json jsonl ndjson yaml yml toml ini cfg conf env
	properties xml html htm css scss sass less md markdown rst txt adoc tex csv
	tsv parquet avro lock log out err pid sock patch diff tf tfvars hcl nix
	mk cmake dockerfile gz tgz bz2 xz zst tar zip jar war whl egg so dylib dll
	exe bin wasm o a png jpg jpeg gif svg webp ico pdf db sqlite sqlite3 pem
	crt key pub pkl pt onnx npy npz h5 ckpt safetensors
`)

// wellKnownFiles are file names recognised without a known extension.
var wellKnownFiles = set(`
	Makefile makefile GNUmakefile Dockerfile Containerfile Jenkinsfile Procfile
	Gemfile Rakefile Vagrantfile Brewfile Justfile justfile README LICENSE
	CHANGELOG CODEOWNERS .env .gitignore .gitattributes .gitmodules
	.dockerignore .editorconfig .npmignore .prettierignore .eslintignore
	.profile .bash_profile .bash_history .flake8 .htaccess .python-version
	.nvmrc .tool-versions
`)

// errnoNames are POSIX errno names and the Node.js network codes.
var errnoNames = set(`
	EPERM ENOENT ESRCH EINTR EIO ENXIO E2BIG ENOEXEC EBADF ECHILD EAGAIN ENOMEM
	EACCES EFAULT EBUSY EEXIST EXDEV ENODEV ENOTDIR EISDIR EINVAL ENFILE EMFILE
	ENOTTY ETXTBSY EFBIG ENOSPC ESPIPE EROFS EMLINK EPIPE EDOM ERANGE EDEADLK
	ENAMETOOLONG ENOLCK ENOSYS ENOTEMPTY ELOOP EWOULDBLOCK ENOTSUP EOPNOTSUPP
	EOVERFLOW EILSEQ ENOTSOCK EADDRINUSE EADDRNOTAVAIL ENETDOWN ENETUNREACH
	ECONNABORTED ECONNRESET ENOBUFS EISCONN ENOTCONN ETIMEDOUT ECONNREFUSED
	EHOSTDOWN EHOSTUNREACH EALREADY EINPROGRESS ESTALE EDQUOT ECANCELED
	EPROTO EPROTONOSUPPORT EMSGSIZE ENOTFOUND EAI_AGAIN EAI_NONAME
`)

// commonDirs are first path segments that make a two-segment relative token
// such as "src/parser" a path.
var commonDirs = set(`
	src lib libs pkg cmd internal app apps test tests spec specs bin build dist
	out target docs doc scripts script tools config configs conf data assets
	static public vendor node_modules examples example include tmp var usr etc
	home opt srv web api server client services packages modules migrations
	fixtures testdata
`)
