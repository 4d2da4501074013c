package estimators

import (
	"math"
	"strings"
	"testing"
)

func TestResolveDefaults(t *testing.T) {
	var s Settings
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Kind: KindStreaming, Alpha: 0.01, Buckets: 1 << 20, Hashes: 1, Init: InitUniform,
		FirstArrival: FirstArrivalZero,
	}
	if s != want {
		t.Errorf("zero value resolved to %+v, want %+v", s, want)
	}
	// Each kind fills the fields it reads and only those.
	for _, c := range []struct{ s, want Settings }{
		{Settings{Kind: KindExact}, Settings{Kind: KindExact, Mode: ModeOnline, Formula: FormulaBinomial}},
		{Settings{Kind: KindUnigram}, Settings{Kind: KindUnigram, Formula: FormulaBinomial}},
		{Settings{Kind: KindLSH}, Settings{Kind: KindLSH, Alpha: 0.01, Buckets: 1 << 20, Hashes: 4, Init: InitUniform,
			FirstArrival: FirstArrivalZero, LSH: LSHSettings{Projections: 8, Bins: 4, Inner: KindMultihash}}},
	} {
		if err := c.s.Resolve(); err != nil || c.s != c.want {
			t.Errorf("kind %s resolved to %+v (%v), want %+v", c.want.Kind, c.s, err, c.want)
		}
	}
	for _, c := range []struct {
		s      Settings
		hashes int
	}{
		{Settings{Kind: KindMultihash}, 4},
		{Settings{Kind: KindLSH}, 4},
		{Settings{Kind: KindLSH, LSH: LSHSettings{Inner: KindStreaming}}, 1},
		{Settings{Kind: KindMultihash, Hashes: 2}, 2},
		{Settings{Kind: KindStreaming, Hashes: 1}, 1},
	} {
		if err := c.s.Resolve(); err != nil {
			t.Fatal(err)
		}
		if c.s.Hashes != c.hashes {
			t.Errorf("kind %s, lsh.inner %s: hashes resolved to %d, want %d", c.s.Kind, c.s.LSH.Inner, c.s.Hashes, c.hashes)
		}
	}
	// Resolving twice changes nothing.
	again := s
	if err := again.Resolve(); err != nil || again != s {
		t.Errorf("second Resolve gave %+v, %v", again, err)
	}
}

func TestResolveErrors(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kind: "foo"}, `kind: unknown "foo" (allowed: exact, unigram, streaming, multihash, lsh)`},
		{Settings{Alpha: 1.5}, "alpha: must be in (0, 1], got 1.5"},
		{Settings{Alpha: -0.1}, "alpha: must be in (0, 1], got -0.1"},
		{Settings{Alpha: math.NaN()}, "alpha: must be in (0, 1], got NaN"},
		{Settings{Buckets: -3}, "buckets: must be at least 1, got -3"},
		{Settings{Hashes: -1}, "hashes: must be at least 1, got -1"},
		{Settings{Hashes: 4}, "hashes: streaming uses one hash, got 4"},
		{Settings{Kind: KindLSH, Hashes: 2, LSH: LSHSettings{Inner: KindStreaming}}, "hashes: streaming uses one hash, got 2"},
		{Settings{Kind: KindMultihash, Buckets: 3, Hashes: 4}, "hashes: must be at most buckets (3), got 4"},
		{Settings{Init: "zero"}, `init: unknown "zero" (allowed: one, uniform)`},
		{Settings{FirstArrival: "first"}, `first_arrival: unknown "first" (allowed: zero, skip)`},
		{Settings{Kind: KindExact, Mode: "offline"}, `mode: unknown "offline" (allowed: online, static)`},
		{Settings{Kind: KindUnigram, Formula: "poisson"}, `formula: unknown "poisson" (allowed: binomial, linear)`},
		{Settings{Kind: KindLSH, LSH: LSHSettings{Projections: -1}}, "lsh.projections: must be at least 1, got -1"},
		{Settings{Kind: KindLSH, LSH: LSHSettings{Bins: 1}}, "lsh.bins: must be at least 2, got 1"},
		{Settings{Kind: KindLSH, LSH: LSHSettings{Bins: 4, Projections: 33}}, "lsh.projections: bins^projections = 4^33 does not fit in 64 bits"},
		{Settings{Kind: KindLSH, LSH: LSHSettings{Inner: "exact"}}, `lsh.inner: unknown "exact" (allowed: streaming, multihash)`},
		// An option the kind does not read is an error, not silently ignored.
		{Settings{Kind: KindExact, Alpha: 0.1}, "alpha: not used by kind exact"},
		{Settings{Kind: KindUnigram, Buckets: 10}, "buckets: not used by kind unigram"},
		{Settings{Kind: KindUnigram, Mode: ModeStatic}, "mode: not used by kind unigram"},
		{Settings{Mode: ModeStatic}, "mode: not used by kind streaming"},
		{Settings{Kind: KindMultihash, Formula: FormulaLinear}, "formula: not used by kind multihash"},
		{Settings{Kind: KindMultihash, LSH: LSHSettings{Bins: 8}}, "lsh: not used by kind multihash"},
		{Settings{Kind: KindExact, Init: InitOne}, "init: not used by kind exact"},
	} {
		err := c.s.Resolve()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Resolve(%+v) = %v, want an error starting %q", c.s, err, c.want)
		}
	}
	// The largest keys that fit: 4^32 = 2^64 and 3^40 < 2^64.
	for _, l := range []LSHSettings{{Bins: 4, Projections: 32}, {Bins: 3, Projections: 40}} {
		s := Settings{Kind: KindLSH, LSH: l}
		if err := s.Resolve(); err != nil {
			t.Errorf("lsh %+v: %v", l, err)
		}
	}
}

func TestNewErrors(t *testing.T) {
	env := Env{BatchSize: 4, CorpusSize: 3, Counts: []int64{1, 2, 3}, EmbeddingDim: 2}
	for _, c := range []struct {
		s    Settings
		env  func(e *Env)
		want string
	}{
		{Settings{Alpha: 2}, nil, "alpha: must be in (0, 1], got 2"},
		{Settings{}, func(e *Env) { e.BatchSize = 0 }, "estimators: Env.BatchSize must be at least 1, got 0"},
		{Settings{}, func(e *Env) { e.CorpusSize = -1 }, "estimators: Env.CorpusSize must not be negative, got -1"},
		{Settings{}, func(e *Env) { e.CorpusSize = 0 }, `init: "uniform" needs the corpus size (Env.CorpusSize > 0); use "one"`},
		{Settings{Kind: KindUnigram}, func(e *Env) { e.Counts = nil }, "estimators: kind unigram needs Env.Counts"},
		{Settings{Kind: KindExact, Mode: ModeStatic}, func(e *Env) { e.Counts = nil }, "estimators: kind exact (mode static) needs Env.Counts"},
		{Settings{Kind: KindUnigram}, func(e *Env) { e.Counts = []int64{1, 2} }, "estimators: Env.Counts has 2 items, Env.CorpusSize is 3"},
		{Settings{Kind: KindUnigram}, func(e *Env) { e.Counts = []int64{1, -2, 3} }, "estimators: Env.Counts[1] = -2 is negative"},
		{Settings{Kind: KindUnigram}, func(e *Env) { e.Counts = []int64{0, 0, 0} }, "estimators: Env.Counts are all zero"},
		{Settings{Kind: KindLSH}, func(e *Env) { e.EmbeddingDim = 0 }, "estimators: kind lsh needs Env.EmbeddingDim > 0, got 0"},
	} {
		e := env
		if c.env != nil {
			c.env(&e)
		}
		_, err := New(c.s, e, 1)
		if err == nil || err.Error() != c.want {
			t.Errorf("New(%+v, %+v) = %v, want %q", c.s, e, err, c.want)
		}
	}
	for _, kind := range []Kind{KindExact, KindUnigram, KindStreaming, KindMultihash, KindLSH} {
		for _, conc := range []bool{false, true} {
			s := Settings{Kind: kind, Concurrent: conc}
			if kind != KindExact && kind != KindUnigram {
				s.Buckets = 4096
			}
			e, err := New(s, env, 1)
			if err != nil {
				t.Fatalf("kind %s: %v", kind, err)
			}
			if _, ok := e.(EmbeddingKeyer); ok != (kind == KindLSH) {
				t.Errorf("kind %s: EmbeddingKeyer is %v", kind, ok)
			}
		}
	}
}
