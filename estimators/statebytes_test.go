package estimators

import (
	"encoding"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/samplingbias/workbench/internal/memstat"
)

// TestStateBytes measures, for every kind, the live heap an estimator holds (after a collection,
// before and after New) and the size of its MarshalBinary after it observed a pass of batches:
// StateBytes is twice the first within 5% (the state and a checkpoint's copy of it), and the copy
// is no larger than the state.
func TestStateBytes(t *testing.T) {
	const items, batch = 200_000, 1024
	env := Env{BatchSize: batch, CorpusSize: items, Counts: make([]int64, items), EmbeddingDim: 8}
	for i := range env.Counts {
		env.Counts[i] = int64(1 + i%7)
	}
	for _, c := range []struct {
		name string
		s    Settings
	}{
		{"exact-online", Settings{Kind: KindExact, Mode: ModeOnline}},
		{"exact-static", Settings{Kind: KindExact, Mode: ModeStatic}},
		{"unigram", Settings{Kind: KindUnigram}},
		{"streaming", Settings{Kind: KindStreaming}},
		{"streaming-concurrent", Settings{Kind: KindStreaming, Concurrent: true}},
		{"multihash", Settings{Kind: KindMultihash, Buckets: 1 << 19, Hashes: 3}},
		{"lsh", Settings{Kind: KindLSH, Buckets: 1 << 18}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := StateBytes(c.s, items)
			if err != nil {
				t.Fatal(err)
			}
			before := memstat.Live()
			e, err := New(c.s, env, 1)
			if err != nil {
				t.Fatal(err)
			}
			held := memstat.Live() - before
			r := rand.New(rand.NewPCG(1, 2))
			ys := make([]uint64, batch)
			for step := int64(1); step <= items/batch; step++ {
				for i := range ys {
					ys[i] = uint64(r.IntN(items))
				}
				e.Observe(step, ys)
			}
			state, err := e.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			runtime.KeepAlive(e)
			t.Logf("StateBytes %.0f, held %.0f, copy %d", want, held, len(state))
			if want == 0 {
				if held > 64<<10 || len(state) > 64<<10 {
					t.Errorf("StateBytes 0, but the estimator holds %.0f bytes and its copy is %d", held, len(state))
				}
				return
			}
			if held < 0.95*want/2 || held > 1.05*want/2 {
				t.Errorf("StateBytes %.0f, twice the %.0f bytes the estimator holds?", want, held)
			}
			if float64(len(state)) > want/2 {
				t.Errorf("the copy is %d bytes, more than the state's %.0f", len(state), want/2)
			}
		})
	}
}
