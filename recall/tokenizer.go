package recall

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

// wordsTokenizer names the tokenizer of the text field's analyzer. It
// splits text exactly as bleve's unicode tokenizer does (Unicode word
// boundaries, as implemented by github.com/blevesearch/segment), but
// scans ASCII text itself: the general scanner was a sixth of the cost of
// indexing, and tool outputs are mostly ASCII.
const wordsTokenizer = "delta_words"

func init() {
	registry.RegisterTokenizer(wordsTokenizer, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return wordTokenizer{general: unicode.NewUnicodeTokenizer()}, nil
	})
}

// wordTokenizer is the tokenizer named wordsTokenizer.
type wordTokenizer struct {
	general analysis.Tokenizer
}

// Tokenize splits input into words. It cuts input into pieces at ASCII
// bytes that no word can hold (spaces, line ends, most punctuation), which
// the general scanner always makes segments of their own that are not
// words; a piece of ASCII is scanned by scanASCII, any other piece by the
// unicode tokenizer. Invalid UTF-8 goes to the unicode tokenizer whole,
// since how it recovers is its own.
func (t wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	if !utf8.Valid(input) {
		return t.general.Tokenize(input)
	}
	toks := make([]analysis.Token, 0, len(input)/8+1)
	for i := 0; i < len(input); {
		if wordBreak(input[i]) {
			i++
			continue
		}
		j, ascii := i, true
		for ; j < len(input) && !wordBreak(input[j]); j++ {
			ascii = ascii && input[j] < utf8.RuneSelf
		}
		if ascii {
			toks = scanASCII(toks, input, i, j)
		} else {
			for _, tok := range t.general.Tokenize(input[i:j]) {
				tok.Start += i
				tok.End += i
				tok.Position = len(toks) + 1
				toks = append(toks, *tok)
			}
		}
		i = j
	}
	out := make(analysis.TokenStream, len(toks))
	for i := range toks {
		out[i] = &toks[i]
	}
	return out
}

// ASCII classes of the word-boundary rules (Unicode's Word_Break property).
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// wordChar reports a letter, a digit or the underscore (ExtendNumLet):
// these join whatever word they touch.
func wordChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// midLetter reports the ASCII characters that join two letters (colon,
// full stop, apostrophe); midNum, those that join two digits (comma,
// semicolon, full stop, apostrophe).
func midLetter(c byte) bool { return c == ':' || c == '.' || c == '\'' }
func midNum(c byte) bool    { return c == ',' || c == ';' || c == '.' || c == '\'' }

// wordBreak reports an ASCII byte that is never part of a word: not a word
// character, not a joiner, and not the double quote, which joins Hebrew
// letters.
func wordBreak(c byte) bool {
	return c < utf8.RuneSelf && !wordChar(c) && !midLetter(c) && !midNum(c) && c != '"'
}

// scanASCII appends the words of input[from:to], which is ASCII and holds
// no wordBreak byte. A word is the longest run of word characters, with
// joiners between two letters or two digits; any other character is a
// segment of its own that is not a word.
func scanASCII(toks []analysis.Token, input []byte, from, to int) []analysis.Token {
	for i := from; i < to; {
		if !wordChar(input[i]) {
			i++
			continue
		}
		j := i + 1
		for j < to {
			c := input[j]
			if wordChar(c) {
				j++
				continue
			}
			if j+1 < to && (midLetter(c) && isLetter(input[j-1]) && isLetter(input[j+1]) ||
				midNum(c) && isDigit(input[j-1]) && isDigit(input[j+1])) {
				j += 2
				continue
			}
			break
		}
		typ := analysis.AlphaNumeric
		if numericWord(input[i:j]) {
			typ = analysis.Numeric
		}
		toks = append(toks, analysis.Token{Term: input[i:j], Start: i, End: j, Position: len(toks) + 1, Type: typ})
		i = j
	}
	return toks
}

// numericWord reports a word with digits and no letters, which the
// scanner types as a number.
func numericWord(w []byte) bool {
	digits := false
	for _, c := range w {
		if isLetter(c) {
			return false
		}
		digits = digits || isDigit(c)
	}
	return digits
}
