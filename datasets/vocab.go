package datasets

import "slices"

// tokenBags accumulates, entity by entity, the bag of string tokens of one field and turns it
// into a Field with a hashed vocabulary.
type tokenBags struct {
	name    string
	always  bool             // every token is known whatever its count (id fields)
	index   map[string]int32 // token -> temporary id
	tokens  []string         // temporary id -> token
	counts  []int32          // number of entities whose bag holds the token
	offsets []int32
	ids     []int32 // temporary ids
}

// newTokenBags starts a field. Tokens of an id field (always) are all known.
func newTokenBags(name string, always bool) *tokenBags {
	return &tokenBags{name: name, always: always, index: map[string]int32{}, offsets: []int32{0}}
}

// add adds tok to the current entity's bag; a token already in the bag is not added again.
func (b *tokenBags) add(tok string) {
	id, ok := b.index[tok]
	if !ok {
		id = int32(len(b.tokens))
		b.index[tok] = id
		b.tokens = append(b.tokens, tok)
		b.counts = append(b.counts, 0)
	}
	if slices.Contains(b.ids[b.offsets[len(b.offsets)-1]:], id) {
		return
	}
	b.ids = append(b.ids, id)
	b.counts[id]++
}

// end closes the current entity's bag.
func (b *tokenBags) end() { b.offsets = append(b.offsets, int32(len(b.ids))) }

// field returns the finished field: tokens held by at least minCount entities (all tokens when
// always) get the ids [0, Known) in byte order; the others go to one of the buckets hash buckets.
func (b *tokenBags) field(minCount, buckets int) Field {
	var known []string
	for id, tok := range b.tokens {
		if b.always || int(b.counts[id]) >= minCount {
			known = append(known, tok)
		}
	}
	slices.Sort(known)
	f := Field{Name: b.name, Known: len(known), Vocab: len(known) + buckets, Tokens: known, Offsets: b.offsets}
	final := make([]int32, len(b.tokens))
	for id, tok := range b.tokens {
		if i, ok := slices.BinarySearch(known, tok); ok {
			final[id] = int32(i)
		} else {
			final[id] = bucket(tok, f.Known, f.Vocab)
		}
	}
	for i, id := range b.ids {
		b.ids[i] = final[id]
	}
	f.IDs = b.ids
	return f
}

// bucket returns the out-of-vocabulary bucket of tok in [known, vocab): FNV-1a-64 of its
// bytes modulo vocab-known.
func bucket(tok string, known, vocab int) int32 {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for i := 0; i < len(tok); i++ {
		h ^= uint64(tok[i])
		h *= prime64
	}
	return int32(known + int(h%uint64(vocab-known)))
}

// IDField returns the numeric id field named name of n entities: entity e's bag is the single
// id e (Vocab = Known = n, no tokens, no buckets). It is the field that gives every entity its
// own embedding row; a loader, or a Dataset built by hand, gives it to each side.
func IDField(name string, n int) Field {
	f := Field{Name: name, Vocab: n, Known: n, Offsets: make([]int32, n+1), IDs: make([]int32, n)}
	for e := range n {
		f.Offsets[e+1] = int32(e + 1)
		f.IDs[e] = int32(e)
	}
	return f
}
