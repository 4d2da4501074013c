package estimators

import (
	"encoding"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestStateRoundTrip checks, for every kind, that an estimator restored from the state of
// another that observed some batches continues exactly as that one: after more batches observed
// by both, every item's p̂ is equal bit for bit. The sequential and concurrent sketches restore
// each other's states; a state of another size is an error.
func TestStateRoundTrip(t *testing.T) {
	const items, batch = 300, 16
	env := Env{BatchSize: batch, CorpusSize: items, Counts: make([]int64, items), EmbeddingDim: 4}
	for i := range env.Counts {
		env.Counts[i] = int64(1 + i%7)
	}
	cases := []struct {
		name       string
		from, into Settings
	}{
		{"exact-online", Settings{Kind: KindExact, Mode: ModeOnline}, Settings{Kind: KindExact, Mode: ModeOnline}},
		{"exact-online-concurrent", Settings{Kind: KindExact, Mode: ModeOnline, Concurrent: true}, Settings{Kind: KindExact, Mode: ModeOnline, Concurrent: true}},
		{"exact-static", Settings{Kind: KindExact, Mode: ModeStatic}, Settings{Kind: KindExact, Mode: ModeStatic}},
		{"unigram", Settings{Kind: KindUnigram}, Settings{Kind: KindUnigram}},
		{"streaming", Settings{Kind: KindStreaming, Buckets: 64}, Settings{Kind: KindStreaming, Buckets: 64}},
		{"streaming-into-concurrent", Settings{Kind: KindStreaming, Buckets: 64}, Settings{Kind: KindStreaming, Buckets: 64, Concurrent: true}},
		{"concurrent-into-streaming", Settings{Kind: KindStreaming, Buckets: 64, Concurrent: true}, Settings{Kind: KindStreaming, Buckets: 64}},
		{"multihash", Settings{Kind: KindMultihash, Buckets: 64, Hashes: 2}, Settings{Kind: KindMultihash, Buckets: 64, Hashes: 2}},
		{"lsh", Settings{Kind: KindLSH, Buckets: 64}, Settings{Kind: KindLSH, Buckets: 64}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := New(c.from, env, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := New(c.into, env, 1)
			if err != nil {
				t.Fatal(err)
			}
			observe := func(e Estimator, from, to int64) {
				r := rand.New(rand.NewPCG(uint64(from), 3))
				for s := from; s < to; s++ {
					ys := make([]uint64, batch)
					for i := range ys {
						ys[i] = uint64(r.IntN(items + 20)) // some ids beyond the corpus
					}
					e.Observe(s, ys)
				}
			}
			observe(a, 1, 40)
			state, err := a.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if err := b.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
				t.Fatal(err)
			}
			observe(a, 40, 80)
			observe(b, 40, 80)
			for y := range uint64(items + 20) {
				if pa, pb := a.Prob(y), b.Prob(y); pa != pb {
					t.Fatalf("item %d: p̂ %v continuing, %v restored", y, pa, pb)
				}
			}
		})
	}
	small, err := New(Settings{Kind: KindStreaming, Buckets: 32}, env, 1)
	if err != nil {
		t.Fatal(err)
	}
	big, err := New(Settings{Kind: KindStreaming, Buckets: 64}, env, 1)
	if err != nil {
		t.Fatal(err)
	}
	state, err := big.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := small.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err == nil || !strings.Contains(err.Error(), "64 buckets, the sketch 32") {
		t.Errorf("state of another size: %v", err)
	}
	if err := small.(encoding.BinaryUnmarshaler).UnmarshalBinary([]byte("garbage")); err == nil {
		t.Error("garbage state accepted")
	}
}
