package estimators

import (
	"fmt"
	"math"
	"strings"
)

// Kinds of estimator (Settings.Kind).
const (
	KindExact     = "exact"
	KindUnigram   = "unigram"
	KindStreaming = "streaming"
	KindMultihash = "multihash"
	KindLSH       = "lsh"
)

// Initial values of B (Settings.Init).
const (
	InitOne     = "one"
	InitUniform = "uniform"
)

// First-arrival rules (Settings.FirstArrival).
const (
	FirstZero = "zero"
	FirstSkip = "skip"
)

// Modes of the exact estimator (Settings.Mode).
const (
	ModeOnline = "online"
	ModeStatic = "static"
)

// Formulas from a per-example frequency q to a batch-inclusion probability p (Settings.Formula).
const (
	FormulaBinomial = "binomial"
	FormulaLinear   = "linear"
)

// Defaults of Settings.
const (
	DefaultAlpha          = 0.01
	DefaultBuckets        = 1 << 20
	DefaultHashes         = 4
	DefaultLSHProjections = 8
	DefaultLSHBins        = 4
)

// Settings is the [estimator] section. Its zero value works: a streaming estimator (Yi et al.
// Algorithm 2) with α = 0.01 and 2^20 buckets. A field only some kinds use says so; setting it
// for another kind is an error (Resolve), not an option silently ignored.
type Settings struct {
	// Kind is exact, unigram, streaming, multihash or lsh; default streaming.
	Kind string `toml:"kind"`
	// Alpha is the EMA learning rate α in (0, 1] of streaming, multihash and lsh; default 0.01
	// (Yi et al.).
	Alpha float64 `toml:"alpha"`
	// Buckets is the total number of buckets H over all hash arrays (streaming, multihash, lsh);
	// default 2^20, about 12 MiB, so that collisions are rare for corpora up to ~10^5 items (load
	// M/H < 0.1). Yi et al.'s simulation uses 5000. multihash uses m arrays of ⌊H/m⌋ buckets.
	Buckets int `toml:"buckets"`
	// Hashes is the number m of hash arrays: 1 for streaming (any other value is an error), default 4
	// for multihash and for lsh with lsh.inner = multihash (Yi et al.'s largest m).
	Hashes int `toml:"hashes"`
	// Init is the initial value of B: "one" (B = 1, Yi's pseudo-code) or "uniform" (B = M/B, the
	// corpus size over the batch size, at least 1; docs/streaming-estimator.md §5; needs
	// Env.CorpusSize); default
	// "uniform". Streaming, multihash, lsh.
	Init string `toml:"init"`
	// FirstArrival is what the first arrival of a bucket feeds B: "zero" (A starts at step 0, so the
	// first arrival at step t is a gap of t, as in Yi's pseudo-code) or "skip" (no gap until a
	// second arrival); default "zero". Streaming, multihash, lsh.
	FirstArrival string `toml:"first_arrival"`
	// Mode of the exact estimator: "online" (counts of the items observed so far) or "static"
	// (counts of a full pass, Env.Counts); default online.
	Mode string `toml:"mode"`
	// Formula turns a frequency q into p for exact and unigram: "binomial" p = 1-(1-q)^B or
	// "linear" p = min(1, B·q); default binomial.
	Formula string `toml:"formula"`
	// Concurrent makes the estimator safe for many goroutines: lock-free for streaming, multihash
	// and lsh (see the package documentation for what a conflict loses), a mutex for online exact;
	// unigram and static exact are read-only and always safe. Default false.
	Concurrent bool `toml:"concurrent"`
	// LSH configures kind lsh.
	LSH LSHSettings `toml:"lsh"`
}

// LSHSettings is the [estimator.lsh] table.
type LSHSettings struct {
	// Projections is the number of random unit projections; default 8.
	Projections int `toml:"projections"`
	// Bins is the number of equal bins each projection of the unit embedding is cut into on
	// [-1, 1]; default 4. bins^projections must fit in 64 bits. In dimension d a projection of a
	// unit vector has standard deviation about 1/√d, so only the central bins are used unless bins
	// is large.
	Bins int `toml:"bins"`
	// Inner is the estimator the keys feed: "streaming" or "multihash"; default multihash (the
	// cascade of docs/streaming-estimator.md §8).
	Inner string `toml:"inner"`
}

// Resolve fills the zero fields with their defaults and validates every field. Errors start with
// the TOML key of the field.
func (s *Settings) Resolve() error {
	if s.Kind == "" {
		s.Kind = KindStreaming
	}
	if err := oneOf("kind", s.Kind, KindExact, KindUnigram, KindStreaming, KindMultihash, KindLSH); err != nil {
		return err
	}
	hashing := s.Kind == KindStreaming || s.Kind == KindMultihash || s.Kind == KindLSH
	for _, f := range []struct {
		key      string
		set, use bool
	}{
		{"alpha", s.Alpha != 0, hashing},
		{"buckets", s.Buckets != 0, hashing},
		{"hashes", s.Hashes != 0, hashing},
		{"init", s.Init != "", hashing},
		{"first_arrival", s.FirstArrival != "", hashing},
		{"mode", s.Mode != "", s.Kind == KindExact},
		{"formula", s.Formula != "", s.Kind == KindExact || s.Kind == KindUnigram},
		{"lsh", s.LSH != (LSHSettings{}), s.Kind == KindLSH},
	} {
		if f.set && !f.use {
			return fmt.Errorf("%s: not used by kind %s", f.key, s.Kind)
		}
	}
	switch s.Kind {
	case KindExact:
		if s.Mode == "" {
			s.Mode = ModeOnline
		}
		if err := oneOf("mode", s.Mode, ModeOnline, ModeStatic); err != nil {
			return err
		}
		fallthrough
	case KindUnigram:
		if s.Formula == "" {
			s.Formula = FormulaBinomial
		}
		return oneOf("formula", s.Formula, FormulaBinomial, FormulaLinear)
	}
	return s.resolveHashing()
}

// resolveHashing fills and checks the fields of the hashing kinds: streaming, multihash and lsh.
func (s *Settings) resolveHashing() error {
	if s.Alpha == 0 {
		s.Alpha = DefaultAlpha
	}
	if !(s.Alpha > 0 && s.Alpha <= 1) {
		return fmt.Errorf("alpha: must be in (0, 1], got %v", s.Alpha)
	}
	if s.Buckets == 0 {
		s.Buckets = DefaultBuckets
	}
	if s.Buckets < 1 {
		return fmt.Errorf("buckets: must be at least 1, got %d", s.Buckets)
	}
	if s.Kind == KindLSH {
		if err := s.LSH.resolve(); err != nil {
			return err
		}
	}
	single := s.Kind == KindStreaming || (s.Kind == KindLSH && s.LSH.Inner == KindStreaming)
	switch {
	case s.Hashes < 0:
		return fmt.Errorf("hashes: must be at least 1, got %d", s.Hashes)
	case s.Hashes == 0 && single:
		s.Hashes = 1
	case s.Hashes == 0:
		s.Hashes = DefaultHashes
	case s.Hashes > 1 && single:
		return fmt.Errorf("hashes: streaming uses one hash, got %d (use kind multihash, or lsh.inner = multihash)", s.Hashes)
	}
	if s.Hashes > s.Buckets {
		return fmt.Errorf("hashes: must be at most buckets (%d), got %d", s.Buckets, s.Hashes)
	}
	if s.Init == "" {
		s.Init = InitUniform
	}
	if err := oneOf("init", s.Init, InitOne, InitUniform); err != nil {
		return err
	}
	if s.FirstArrival == "" {
		s.FirstArrival = FirstZero
	}
	return oneOf("first_arrival", s.FirstArrival, FirstZero, FirstSkip)
}

func (l *LSHSettings) resolve() error {
	if l.Projections == 0 {
		l.Projections = DefaultLSHProjections
	}
	if l.Projections < 1 {
		return fmt.Errorf("lsh.projections: must be at least 1, got %d", l.Projections)
	}
	if l.Bins == 0 {
		l.Bins = DefaultLSHBins
	}
	if l.Bins < 2 {
		return fmt.Errorf("lsh.bins: must be at least 2, got %d", l.Bins)
	}
	if float64(l.Projections)*math.Log2(float64(l.Bins)) > 64 {
		return fmt.Errorf("lsh.projections: bins^projections = %d^%d does not fit in 64 bits", l.Bins, l.Projections)
	}
	if l.Inner == "" {
		l.Inner = KindMultihash
	}
	return oneOf("lsh.inner", l.Inner, KindStreaming, KindMultihash)
}

func oneOf(key, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s: unknown %q (allowed: %s)", key, v, strings.Join(allowed, ", "))
}

// Env is what the data gives an estimator.
type Env struct {
	// BatchSize is the batch size B (at least 1).
	BatchSize int
	// CorpusSize is the number of items M, or 0 if unknown (init "uniform" then is an error).
	// Online exact uses it to size its count table (ids ≥ M then go to a map).
	CorpusSize int
	// Counts is the training count of each item id 0..len(Counts)-1; needed by unigram and static
	// exact, nil otherwise.
	Counts []int64
	// EmbeddingDim is the dimension of the embeddings the lsh kind keys; needed by lsh only.
	EmbeddingDim int
}

// initialGap is the initial value of B for init.
func (e Env) initialGap(init string) (float64, error) {
	if init == InitOne {
		return 1, nil
	}
	if e.CorpusSize < 1 {
		return 0, fmt.Errorf("init: %q needs the corpus size (Env.CorpusSize > 0); use %q", InitUniform, InitOne)
	}
	return math.Max(1, float64(e.CorpusSize)/float64(e.BatchSize)), nil
}
