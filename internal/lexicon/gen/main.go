// Command gen writes internal/lexicon's data from a WordNet 3.0 database
// (Debian's wordnet-base package installs one in /usr/share/wordnet):
//
//	go run ./internal/lexicon/gen /usr/share/wordnet > internal/lexicon/wordnet.txt
//
// Each line is a part of speech (n or v), a lemma of one word (or a noun
// of two, joined by an underscore: martial_art), the concept
// its commonest sense names (a synset), and the concepts above it
// (hypernyms and instance hypernyms, up to three levels), as numbers in
// base 36. Lines whose part of speech ends in "!" give an irregular form
// WordNet lists (mice, ran, saw) and its first lemma; the lexicon reads
// such a form as that lemma, even where the form is a lemma too ("saw" is
// the verb see, not to saw wood). Lemmas with hyphens are left out: the
// recall index splits words at hyphens. Lines are in byte order.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// depth is how many hypernym levels a lemma's concepts reach: two or
// three relate "swimming" to "sport" and "recreation", and past them
// every act is an "event".
const depth = 3

type synset struct {
	up []string // hypernym keys, same part of speech
}

type pos struct {
	name  string
	first map[string]string // lemma -> key of its commonest sense
	sets  map[string]synset
	exc   map[string]string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen WORDNET_DIR (e.g. /usr/share/wordnet)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	var all []*pos
	for _, name := range []string{"noun", "verb"} {
		p, err := load(dir, name)
		if err != nil {
			return err
		}
		all = append(all, p)
	}
	ids := map[string]int{}
	id := func(key string) string {
		n, ok := ids[key]
		if !ok {
			n = len(ids)
			ids[key] = n
		}
		return strconv.FormatInt(int64(n), 36)
	}
	var out []string
	for _, p := range all {
		tag := p.name[:1]
		for _, l := range sortedKeys(p.first) {
			key := p.first[l]
			var above []string
			for _, k := range p.closure(key)[1:] {
				above = append(above, id(k))
			}
			out = append(out, fmt.Sprintf("%s\t%s\t%s\t%s\n", tag, l, id(key), strings.Join(above, ",")))
		}
		for _, form := range sortedKeys(p.exc) {
			if base := p.exc[form]; p.first[base] != "" {
				out = append(out, fmt.Sprintf("%s!\t%s\t%s\n", tag, form, base))
			}
		}
	}
	// The lexicon looks lines up by binary search over their bytes.
	slices.Sort(out)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, l := range out {
		w.WriteString(l)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// closure lists key and the synsets above it, up to depth levels, in a
// stable order.
func (p *pos) closure(key string) []string {
	seen := map[string]bool{key: true}
	out := []string{key}
	level := []string{key}
	for d := 0; d < depth; d++ {
		var next []string
		for _, k := range level {
			for _, u := range p.sets[k].up {
				if !seen[u] {
					seen[u] = true
					out = append(out, u)
					next = append(next, u)
				}
			}
		}
		level = next
	}
	return out
}

// word reports whether a lemma is one plain word: lower-case letters, and
// inner apostrophes.
func word(l string) bool {
	if l == "" || strings.ContainsAny(l[:1]+l[len(l)-1:], "'") {
		return false
	}
	for _, r := range l {
		if (r < 'a' || r > 'z') && r != '\'' {
			return false
		}
	}
	return true
}

// compound reports whether a noun lemma is two plain words ("martial_art",
// "ice_cream"): a question that names one ("what martial arts…") means the
// compound, not its words, and the lexicon looks such pairs up
// (lexicon.Pair). Longer ones are rare in speech and left out.
func compound(l string) bool {
	a, b, ok := strings.Cut(l, "_")
	return ok && word(a) && word(b)
}

func load(dir, name string) (*pos, error) {
	p := &pos{name: name, first: map[string]string{}, sets: map[string]synset{}, exc: map[string]string{}}
	tag := name[:1]
	err := lines(filepath.Join(dir, "index."+name), func(f []string) error {
		if len(f) < 6 || !word(f[0]) && !(name == "noun" && compound(f[0])) {
			return nil
		}
		ptrs, err := strconv.Atoi(f[3])
		if err != nil {
			return err
		}
		// lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
		offs := f[4+ptrs+2:]
		if len(offs) > 0 {
			p.first[f[0]] = tag + offs[0]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = lines(filepath.Join(dir, "data."+name), func(f []string) error {
		// offset lex_filenum ss_type w_cnt word lex_id ... p_cnt [ptr...] | gloss
		if len(f) < 4 {
			return nil
		}
		wc, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil {
			return err
		}
		k := 4 + 2*int(wc)
		n, err := strconv.Atoi(f[k])
		if err != nil {
			return err
		}
		k++
		var s synset
		for i := 0; i < n; i++ {
			sym, off, ps := f[k], f[k+1], f[k+2]
			k += 4
			if (sym == "@" || sym == "@i") && ps == tag {
				s.up = append(s.up, tag+off)
			}
		}
		p.sets[tag+f[0]] = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = lines(filepath.Join(dir, name+".exc"), func(f []string) error {
		if len(f) >= 2 && word(f[0]) && word(f[1]) {
			p.exc[f[0]] = f[1]
		}
		return nil
	})
	return p, err
}

// lines calls fn with the fields of each line of path that is not part
// of the license header (which starts with spaces).
func lines(path string, fn func([]string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		if err := fn(strings.Fields(line)); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
