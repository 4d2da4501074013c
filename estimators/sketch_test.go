package estimators

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refSketch is Yi et al. Algorithms 2 and 3 in float64, straight from equation (6): per array i,
// B_i[h] ← (1-α)B_i[h] + α(t - A_i[h]), A_i[h] ← t for each distinct bucket h of the batch
// (the unique hashed ids of docs/streaming-estimator.md §1) not yet seen at step t; p̂ = 1/max_i B_i[h_i(y)]. Only the
// bucket function is the package's.
type refSketch struct {
	h         hashes
	a         map[int]int64
	b         map[int]float64
	b0, alpha float64
	skipFirst bool
}

func (r *refSketch) observe(t int64, items []uint64) {
	seen := map[int]bool{}
	for _, y := range items {
		for i := range r.h.keys {
			seen[r.h.index(i, y)] = true
		}
	}
	for k := range seen {
		a := r.a[k]
		if a == t {
			continue
		}
		r.a[k] = t
		if a == 0 && r.skipFirst {
			continue
		}
		b, ok := r.b[k]
		if !ok {
			b = r.b0
		}
		r.b[k] = (1-r.alpha)*b + r.alpha*float64(t-a)
	}
}

func (r *refSketch) prob(y uint64) float64 {
	var bmax float64
	for i := range r.h.keys {
		b, ok := r.b[r.h.index(i, y)]
		if !ok {
			b = r.b0
		}
		bmax = math.Max(bmax, b)
	}
	return 1 / bmax
}

// TestSketchMatchesReference runs both forms of the streaming estimators and the reference on one
// random stream with many collisions (50 items in 24 buckets), duplicates and repeated steps.
func TestSketchMatchesReference(t *testing.T) {
	for _, c := range []struct {
		kind   Kind
		init   Init
		first  FirstArrival
		hashes int
	}{
		{KindStreaming, InitOne, FirstArrivalZero, 1},
		{KindStreaming, InitUniform, FirstArrivalSkip, 1},
		{KindMultihash, InitUniform, FirstArrivalZero, 2},
		{KindMultihash, InitOne, FirstArrivalSkip, 3},
	} {
		s := Settings{Kind: c.kind, Alpha: 0.1, Buckets: 24, Hashes: c.hashes, Init: c.init, FirstArrival: c.first}
		env := Env{BatchSize: 4, CorpusSize: 50}
		plain, err := New(s, env, 7)
		if err != nil {
			t.Fatal(err)
		}
		s.Concurrent = true
		conc, err := New(s, env, 7)
		if err != nil {
			t.Fatal(err)
		}
		b0 := 1.0
		if c.init == InitUniform {
			b0 = 50.0 / 4
		}
		ref := &refSketch{h: plain.(*sketch).hashes, a: map[int]int64{}, b: map[int]float64{}, b0: b0, alpha: 0.1, skipFirst: c.first == FirstArrivalSkip}
		rng := rand.New(rand.NewPCG(8, 9))
		batch := make([]uint64, 4)
		var step int64
		for range 3000 {
			step += int64(rng.IntN(2)) // some steps are observed twice
			if step == 0 {
				step = 1
			}
			for j := range batch {
				batch[j] = uint64(rng.IntN(50) * rng.IntN(2)) // item 0 half the time: duplicates
			}
			plain.Observe(step, batch)
			conc.Observe(step, batch)
			ref.observe(step, batch)
			for y := uint64(0); y < 50; y++ {
				want := ref.prob(y)
				if got := plain.Prob(y); math.Abs(got-want) > 1e-5*want {
					t.Fatalf("%+v: step %d: p̂(%d) = %v, reference %v", c, step, y, got, want)
				}
				if got, p := conc.Prob(y), plain.Prob(y); got != p {
					t.Fatalf("%+v: step %d: concurrent p̂(%d) = %v, plain %v", c, step, y, got, p)
				}
			}
		}
	}
}

// TestSketchByHand checks update-then-read values computed by hand with α = 0.01.
func TestSketchByHand(t *testing.T) {
	type obs struct {
		t     int64
		items []uint64
	}
	for _, c := range []struct {
		name  string
		s     Settings
		steps []obs
		gap   float64 // B after the steps, computed by hand
	}{
		// B0 = M/B = 1000/10 = 100; 0.99·100 + 0.01·5 = 99.05.
		{"uniform first arrival", Settings{}, []obs{{5, []uint64{7}}}, 99.05},
		// then 0.99·99.05 + 0.01·(7-5) = 98.0795; duplicates are one arrival.
		{"uniform second arrival", Settings{}, []obs{{5, []uint64{7}}, {7, []uint64{7, 7, 7}}}, 98.0795},
		// the same step observed twice is one arrival.
		{"same step twice", Settings{}, []obs{{5, []uint64{7}}, {5, []uint64{7}}, {7, []uint64{7}}, {7, []uint64{7}}}, 98.0795},
		// skip: the first arrival only sets A = 5; then 0.99·100 + 0.01·2 = 99.02.
		{"skip", Settings{FirstArrival: FirstArrivalSkip}, []obs{{5, []uint64{7}}}, 100},
		{"skip second arrival", Settings{FirstArrival: FirstArrivalSkip}, []obs{{5, []uint64{7}}, {7, []uint64{7}}}, 99.02},
		// B0 = 1: 0.99·1 + 0.01·3 = 1.02.
		{"one", Settings{Init: InitOne}, []obs{{3, []uint64{7}}}, 1.02},
		// One bucket: items 1 and 2 collide; at one step they are one arrival (a literal per-item
		// reading would give a second gap of 0: 0.99·99.05 = 98.0595).
		{"collision one step", Settings{Buckets: 1}, []obs{{5, []uint64{1, 2}}}, 99.05},
		{"collision two calls", Settings{Buckets: 1}, []obs{{5, []uint64{1}}, {5, []uint64{2}}}, 99.05},
		// at different steps they are two arrivals of the bucket: 0.99·99.05 + 0.01·1 = 98.0695.
		{"collision two steps", Settings{Buckets: 1}, []obs{{5, []uint64{1}}, {6, []uint64{2}}}, 98.0695},
		// an earlier step than the bucket's last is ignored.
		{"stale step", Settings{}, []obs{{5, []uint64{7}}, {4, []uint64{7}}}, 99.05},
	} {
		for _, conc := range []bool{false, true} {
			s := c.s
			s.Concurrent = conc
			if s.Buckets == 0 {
				s.Buckets = 64
			}
			e, err := New(s, Env{BatchSize: 10, CorpusSize: 1000}, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range c.steps {
				e.Observe(o.t, o.items)
			}
			y := c.steps[len(c.steps)-1].items[0]
			if got := e.Prob(y); math.Abs(got-1/c.gap) > 1e-6/c.gap {
				t.Errorf("%s (concurrent %v): p̂ = %v, want 1/%v = %v", c.name, conc, got, c.gap, 1/c.gap)
			}
		}
	}
}

// TestMultihashMax checks p̂ = 1/max_i B_i on a sketch whose arrays hold known values.
func TestMultihashMax(t *testing.T) {
	e, err := New(Settings{Kind: KindMultihash, Buckets: 12, Hashes: 3, Init: InitOne}, Env{BatchSize: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	s := e.(*sketch)
	for k := range s.cells {
		s.cells[k].gap = float64(k + 1)
	}
	for y := uint64(0); y < 20; y++ {
		var want float64
		for i := range 3 {
			k := s.index(i, y)
			if k < 4*i || k >= 4*(i+1) {
				t.Fatalf("array %d: bucket %d of item %d outside [%d, %d)", i, k, y, 4*i, 4*(i+1))
			}
			want = math.Max(want, float64(k+1))
		}
		if got := e.Prob(y); got != 1/want {
			t.Errorf("p̂(%d) = %v, want 1/%v", y, got, want)
		}
	}
}

// TestHashUniform: the buckets of consecutive ids pass a chi-square test, in every array, and
// pairs collide in two arrays about as often as independent hashes would make them.
func TestHashUniform(t *testing.T) {
	const (
		m, width = 4, 1000
		n        = 200000
	)
	h := newHashes(m, m*width, 11)
	for i := range m {
		count := make([]float64, width)
		for y := uint64(0); y < n; y++ {
			count[h.index(i, y)-i*width]++
		}
		var chi2 float64
		e := float64(n) / width
		for _, c := range count {
			chi2 += (c - e) * (c - e) / e
		}
		// chi-square with 999 degrees of freedom: mean 999, sd √1998 ≈ 44.7; 5 sd.
		if math.Abs(chi2-(width-1)) > 5*math.Sqrt(2*(width-1)) {
			t.Errorf("array %d: chi-square %.0f over %d buckets", i, chi2, width)
		}
	}
	// Pairs of 2000 items that collide in arrays 0 and 1: C(2000, 2)/width² ≈ 2.0 expected under
	// independence, against C(2000, 2)/width ≈ 2000 if the arrays were the same hash.
	const items = 2000
	both := 0
	for y := uint64(0); y < items; y++ {
		for z := y + 1; z < items; z++ {
			if h.index(0, y) == h.index(0, z) && h.index(1, y) == h.index(1, z) {
				both++
			}
		}
	}
	if both > 12 {
		t.Errorf("%d pairs collide in both arrays, want about 2", both)
	}
}

func TestNoAllocs(t *testing.T) {
	items := []uint64{1, 5, 5, 99, 1 << 40}
	for _, conc := range []bool{false, true} {
		for _, kind := range []Kind{KindStreaming, KindMultihash} {
			e, err := New(Settings{Kind: kind, Buckets: 5000, Concurrent: conc}, Env{BatchSize: 5, CorpusSize: 100}, 1)
			if err != nil {
				t.Fatal(err)
			}
			var step int64
			dst := make([]float64, len(items))
			if a := testing.AllocsPerRun(100, func() {
				step++
				e.Observe(step, items)
				LogProbs(e, items, dst)
			}); a != 0 {
				t.Errorf("%s (concurrent %v): %v allocations per Observe and LogProbs", kind, conc, a)
			}
		}
	}
}

func TestLogProbs(t *testing.T) {
	e, err := New(Settings{Kind: KindMultihash, Buckets: 64}, Env{BatchSize: 8, CorpusSize: 100}, 2)
	if err != nil {
		t.Fatal(err)
	}
	items := []uint64{3, 4, 3, 90}
	e.Observe(2, items)
	e.Observe(9, items[:2])
	dst := make([]float64, len(items))
	LogProbs(e, items, dst)
	for i, y := range items {
		if want := math.Log(e.Prob(y)); dst[i] != want {
			t.Errorf("LogProbs[%d] = %v, want log p̂(%d) = %v", i, dst[i], y, want)
		}
	}
}
