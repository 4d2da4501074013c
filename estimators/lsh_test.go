package estimators

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

func newTestLSH(t *testing.T, l LSHSettings, dim int, seed int64) *lsh {
	t.Helper()
	e, err := New(Settings{Kind: KindLSH, Buckets: 4096, LSH: l}, Env{BatchSize: 8, CorpusSize: 100, EmbeddingDim: dim}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return e.(*lsh)
}

func randomRows(rng *rand.Rand, n, dim int) []float32 {
	emb := make([]float32, n*dim)
	for i := range emb {
		emb[i] = float32(rng.NormFloat64())
	}
	return emb
}

// refKey is the key of row x from the definition: bin c_j = the number of inner bin edges
// -1 + 2k/bins (k = 1..bins-1) at or below ⟨x/‖x‖, w_j⟩, key = Σ_j c_j·bins^(P-1-j).
func refKey(x []float32, planes []float64, bins int) uint64 {
	dim := len(x)
	var n float64
	for _, v := range x {
		n += float64(v) * float64(v)
	}
	n = math.Sqrt(n)
	p := len(planes) / dim
	var key uint64
	for j := range p {
		var z float64
		for i, v := range x {
			z += float64(v) / n * planes[j*dim+i]
		}
		c := 0
		for k := 1; k < bins; k++ {
			if -1+2*float64(k)/float64(bins) <= z {
				c++
			}
		}
		key += uint64(c) * uint64(math.Pow(float64(bins), float64(p-1-j)))
	}
	return key
}

func TestLSHKeys(t *testing.T) {
	const dim = 5
	rng := rand.New(rand.NewPCG(1, 1))
	for _, l := range []LSHSettings{{Projections: 3, Bins: 5}, {Projections: 8, Bins: 4}, {Projections: 1, Bins: 2}} {
		e := newTestLSH(t, l, dim, 3)
		for j := 0; j < len(e.planes); j += dim {
			var n float64
			for _, w := range e.planes[j : j+dim] {
				n += w * w
			}
			if math.Abs(n-1) > 1e-12 {
				t.Errorf("%+v: projection %d has squared norm %v", l, j/dim, n)
			}
		}
		emb := randomRows(rng, 500, dim)
		keys := e.Keys(nil, emb, dim)
		scaled := make([]float32, len(emb))
		for i, v := range emb {
			scaled[i] = 3 * v
		}
		keys3 := e.Keys(make([]uint64, 7), scaled, dim)
		if len(keys) != 500 || len(keys3) != 500 {
			t.Fatalf("%+v: %d and %d keys of 500 rows", l, len(keys), len(keys3))
		}
		distinct := map[uint64]bool{}
		for r := range 500 {
			want := refKey(emb[r*dim:(r+1)*dim], e.planes, l.Bins)
			if keys[r] != want {
				t.Errorf("%+v: row %d: key %d, want %d", l, r, keys[r], want)
			}
			if keys3[r] != keys[r] {
				t.Errorf("%+v: row %d: key of 3x %d, of x %d", l, r, keys3[r], keys[r])
			}
			distinct[keys[r]] = true
		}
		if len(distinct) < 2 {
			t.Errorf("%+v: all rows have one key", l)
		}
	}
}

func TestLSHKeysEdges(t *testing.T) {
	e := newTestLSH(t, LSHSettings{Projections: 2, Bins: 4}, 2, 1)
	copy(e.planes, []float64{1, 0, 0, 1}) // projections onto the two axes
	// (1, 0): bins 3 (z = 1 is the last bin) and 2 (z = 0 opens the upper half); (-1, 0): 0, 2;
	// the zero row: 2, 2; (0.6, -0.8): z = 0.6 → 3, z = -0.8 → 0.
	got := e.Keys(nil, []float32{1, 0, -1, 0, 0, 0, 0.6, -0.8}, 2)
	want := []uint64{3*4 + 2, 0*4 + 2, 2*4 + 2, 3*4 + 0}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: key %d, want %d", i, got[i], want[i])
		}
	}
}

func TestLSHEstimator(t *testing.T) {
	const dim = 16
	e := newTestLSH(t, LSHSettings{}, dim, 5)
	other := newTestLSH(t, LSHSettings{}, dim, 6)
	rng := rand.New(rand.NewPCG(2, 2))
	x := randomRows(rng, 1, dim)
	near := make([]float32, dim)
	for i, v := range x {
		near[i] = 2*v + 1e-4*float32(rng.NormFloat64())
	}
	neg := make([]float32, dim)
	for i, v := range x {
		neg[i] = -v
	}
	keys := e.Keys(nil, append(append(append([]float32{}, x...), near...), neg...), dim)
	if keys[0] != keys[1] {
		t.Errorf("nearly parallel embeddings have keys %d and %d", keys[0], keys[1])
	}
	if keys[0] == keys[2] {
		t.Errorf("opposite embeddings share key %d", keys[0])
	}
	rows := randomRows(rng, 50, dim)
	a, b := e.Keys(nil, rows, dim), other.Keys(nil, rows, dim)
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	if same == len(a) {
		t.Error("two seeds give the same keys")
	}
	// The keys are the estimator's items: the near-duplicate shares the estimate.
	before := e.Prob(keys[1])
	e.Observe(3, keys[:1])
	if p := e.Prob(keys[1]); p == before {
		t.Errorf("p̂ of the near-duplicate did not move (%v)", p)
	}
	// Keys is read-only: safe from many goroutines.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			dst := make([]uint64, 0, 50)
			for range 20 {
				if k := e.Keys(dst, rows, dim); k[7] != a[7] {
					t.Error("concurrent Keys differ")
					return
				}
			}
		})
	}
	wg.Wait()
	dst := make([]uint64, 0, 50)
	if n := testing.AllocsPerRun(20, func() { e.Keys(dst, rows, dim) }); n != 0 {
		t.Errorf("Keys allocates %v times", n)
	}
}

func TestLSHKeysPanics(t *testing.T) {
	e := newTestLSH(t, LSHSettings{}, 4, 1)
	for _, c := range []struct {
		emb []float32
		dim int
	}{{make([]float32, 8), 2}, {make([]float32, 7), 4}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Keys of %d values, dim %d: no panic", len(c.emb), c.dim)
				}
			}()
			e.Keys(nil, c.emb, c.dim)
		}()
	}
}
