// Package bpevocab defines the binary form in which package scoring embeds
// a BPE vocabulary, and builds it for the generator. A vocabulary maps each
// token, a byte string, to its rank; ranks are dense, 0 to N-1.
//
// The form is read in place, with no set-up: a Table wraps the bytes, often
// an embedded string, and answers lookups from them directly. All integers
// are little-endian uint32:
//
//	header:  N, slotBits
//	offsets: N+1 offsets into the blob; token r is blob[offsets[r]:offsets[r+1]]
//	slots:   1<<slotBits slots of an open-addressing hash table
//	blob:    the tokens' bytes in rank order, concatenated
//
// A slot is 0 when empty, otherwise a tag of 14 hash bits above rank+1 in
// the low 18 bits. A token's hash picks its first slot and its tag; probing
// is linear. Tags let most probes that miss skip comparing bytes.
package bpevocab

import (
	"encoding/binary"
	"errors"
	"fmt"
)

const (
	// rankBits is the width of rank+1 in a slot, so N < 1<<rankBits.
	rankBits = 18
	// tagBits is the width of a slot's tag.
	tagBits  = 32 - rankBits
	rankMask = 1<<rankBits - 1
	// headerSize is the size in bytes of N and slotBits.
	headerSize = 8
	// maxLoad bounds the share of filled slots: at 4/5 a lookup that misses
	// reads about ten slots, mostly from one cache line.
	maxLoadNum, maxLoadDen = 4, 5
)

// Table is a vocabulary in the embedded form. Its methods only read, so a
// Table is safe for concurrent use.
type Table struct {
	data     string // the whole form
	n        int    // number of tokens
	slotBits uint   // log2 of the number of slots
	slots    int    // offset in data of the slots
	blob     string // the tokens' bytes
}

// Open wraps data, a vocabulary in the embedded form, after checking that
// its parts fit. It reads only the header.
func Open(data string) (Table, error) {
	if len(data) < headerSize {
		return Table{}, errors.New("bpevocab: truncated header")
	}
	n, bits := int(le32(data, 0)), uint(le32(data, 4))
	if n >= rankMask || bits > 30 || n > 1<<bits {
		return Table{}, fmt.Errorf("bpevocab: bad header: %d tokens, %d slot bits", n, bits)
	}
	slots := headerSize + 4*(n+1)
	blob := slots + 4<<bits
	if len(data) < blob || int(le32(data, slots-4)) != len(data)-blob {
		return Table{}, errors.New("bpevocab: size does not match the header")
	}
	return Table{data: data, n: n, slotBits: bits, slots: slots, blob: data[blob:]}, nil
}

// Len returns the number of tokens.
func (t *Table) Len() int { return t.n }

// Token returns the bytes of the token of rank r, 0 <= r < Len().
func (t *Table) Token(r int) string {
	at := headerSize + 4*r
	return t.blob[le32(t.data, at):le32(t.data, at+4)]
}

// Rank returns the rank of tok, and whether tok is a token.
func (t *Table) Rank(tok string) (uint32, bool) {
	h := hash(tok)
	mask := uint64(1)<<t.slotBits - 1
	tag := uint32(h>>(64-tagBits)) << rankBits
	for i := h >> (64 - tagBits - t.slotBits) & mask; ; i = (i + 1) & mask {
		slot := le32(t.data, t.slots+4*int(i))
		if slot == 0 {
			return 0, false
		}
		if slot&^rankMask == tag {
			if r := int(slot&rankMask) - 1; t.Token(r) == tok {
				return uint32(r), true
			}
		}
	}
}

// Build returns the embedded form of a vocabulary given as its tokens in
// rank order. Tokens must be distinct and non-empty.
func Build(tokens []string) ([]byte, error) {
	if len(tokens) >= rankMask {
		return nil, fmt.Errorf("bpevocab: %d tokens, at most %d fit", len(tokens), rankMask-1)
	}
	bits := uint(0)
	for maxLoadDen*len(tokens) > maxLoadNum<<bits {
		bits++
	}
	mask := uint64(1)<<bits - 1
	slots := make([]uint32, 1<<bits)
	data := binary.LittleEndian.AppendUint32(nil, uint32(len(tokens)))
	data = binary.LittleEndian.AppendUint32(data, uint32(bits))
	offset := 0
	for r, tok := range tokens {
		if tok == "" {
			return nil, fmt.Errorf("bpevocab: token %d is empty", r)
		}
		data = binary.LittleEndian.AppendUint32(data, uint32(offset))
		offset += len(tok)
		h := hash(tok)
		i := h >> (64 - tagBits - bits) & mask
		for ; slots[i] != 0; i = (i + 1) & mask {
			if other := int(slots[i]&rankMask) - 1; tokens[other] == tok {
				return nil, fmt.Errorf("bpevocab: tokens %d and %d are both %q", other, r, tok)
			}
		}
		slots[i] = uint32(h>>(64-tagBits))<<rankBits | uint32(r+1)
	}
	data = binary.LittleEndian.AppendUint32(data, uint32(offset))
	for _, s := range slots {
		data = binary.LittleEndian.AppendUint32(data, s)
	}
	for _, tok := range tokens {
		data = append(data, tok...)
	}
	return data, nil
}

// hash is 64-bit FNV-1a of s, multiplied by an odd constant so that its top
// bits, which pick the slot and the tag, depend on every byte.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h * 0x9e3779b97f4a7c15
}

// le32 reads the little-endian uint32 at s[i:i+4].
func le32(s string, i int) uint32 {
	_ = s[i+3] // one bounds check
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}
