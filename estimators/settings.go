package estimators

import (
	"fmt"
	"math"

	"github.com/samplingbias/workbench/internal/setting"
)

// Kind is the kind of estimator, Settings.Kind.
type Kind string

// Kinds of estimator.
const (
	KindExact     Kind = "exact"
	KindUnigram   Kind = "unigram"
	KindStreaming Kind = "streaming"
	KindMultihash Kind = "multihash"
	KindLSH       Kind = "lsh"
)

var kinds = []Kind{KindExact, KindUnigram, KindStreaming, KindMultihash, KindLSH}

// innerKinds are the kinds an lsh estimator's keys can feed (LSHSettings.Inner).
var innerKinds = []Kind{KindStreaming, KindMultihash}

// UnmarshalText sets k from its name; an unknown name is an error that lists the allowed ones.
func (k *Kind) UnmarshalText(b []byte) error { return setting.Unmarshal(k, b, kinds) }

// Init is the initial value of B, Settings.Init.
type Init string

// Initial values of B.
const (
	InitOne     Init = "one"
	InitUniform Init = "uniform"
)

var inits = []Init{InitOne, InitUniform}

// UnmarshalText sets i from its name; an unknown name is an error that lists the allowed ones.
func (i *Init) UnmarshalText(b []byte) error { return setting.Unmarshal(i, b, inits) }

// FirstArrival is what the first arrival of a bucket feeds B, Settings.FirstArrival.
type FirstArrival string

// First-arrival rules.
const (
	FirstArrivalZero FirstArrival = "zero"
	FirstArrivalSkip FirstArrival = "skip"
)

var firstArrivals = []FirstArrival{FirstArrivalZero, FirstArrivalSkip}

// UnmarshalText sets f from its name; an unknown name is an error that lists the allowed ones.
func (f *FirstArrival) UnmarshalText(b []byte) error { return setting.Unmarshal(f, b, firstArrivals) }

// Mode is the mode of the exact estimator, Settings.Mode.
type Mode string

// Modes of the exact estimator.
const (
	ModeOnline Mode = "online"
	ModeStatic Mode = "static"
)

var modes = []Mode{ModeOnline, ModeStatic}

// UnmarshalText sets m from its name; an unknown name is an error that lists the allowed ones.
func (m *Mode) UnmarshalText(b []byte) error { return setting.Unmarshal(m, b, modes) }

// Formula turns a per-example frequency q into a batch-inclusion probability p, Settings.Formula.
type Formula string

// Formulas.
const (
	FormulaBinomial Formula = "binomial"
	FormulaLinear   Formula = "linear"
)

var formulas = []Formula{FormulaBinomial, FormulaLinear}

// UnmarshalText sets f from its name; an unknown name is an error that lists the allowed ones.
func (f *Formula) UnmarshalText(b []byte) error { return setting.Unmarshal(f, b, formulas) }

// Defaults of Settings, filled in by Resolve.
const (
	DefaultKind           = KindStreaming
	DefaultAlpha          = 0.01
	DefaultBuckets        = 1 << 20
	DefaultHashes         = 4
	DefaultInit           = InitUniform
	DefaultFirstArrival   = FirstArrivalZero
	DefaultMode           = ModeOnline
	DefaultFormula        = FormulaBinomial
	DefaultLSHProjections = 8
	DefaultLSHBins        = 4
	DefaultLSHInner       = KindMultihash
)

// Settings is the [estimator] section. Its zero value works: a streaming estimator (Yi et al.
// Algorithm 2) with α = 0.01 and 2^20 buckets. A field only some kinds use says so; setting it
// for another kind is an error (Resolve), not an option silently ignored. The estimator's p̂ is
// read by logq, nce and sampled_logistic with logq_probability "inclusion" or "dedupe", by
// q_source "estimator", by in_batch_unique's q with a loss that reads q, and by the sampler's
// audit; a grid none of whose runs reads it, with a setting written other than its default,
// gets a warning.
type Settings struct {
	// Kind is one of the Kind constants; default DefaultKind.
	Kind Kind `toml:"kind"`
	// Alpha is the EMA learning rate α in (0, 1] of streaming, multihash and lsh; default
	// DefaultAlpha (Yi et al.).
	Alpha float64 `toml:"alpha"`
	// Buckets is the total number of buckets H over all hash arrays (streaming, multihash, lsh);
	// default DefaultBuckets = 2^20, 16 MiB, so that collisions are rare for corpora up to ~10^5 items (load
	// M/H < 0.1). Yi et al.'s simulation uses 5000. multihash uses m arrays of ⌊H/m⌋ buckets.
	Buckets int `toml:"buckets"`
	// Hashes is the number m of hash arrays: 1 for streaming (any other value is an error),
	// default DefaultHashes for multihash and for lsh with lsh.inner = multihash (Yi et al.'s
	// largest m).
	Hashes int `toml:"hashes"`
	// Init is the initial value of B: InitOne (B = 1, Yi's pseudo-code) or InitUniform (B = M/B,
	// the corpus size over the batch size, at least 1; docs/streaming-estimator.md §5; needs
	// Env.CorpusSize); default DefaultInit. Streaming, multihash, lsh.
	Init Init `toml:"init"`
	// FirstArrival is what the first arrival of a bucket feeds B: FirstArrivalZero (A starts at
	// step 0, so the first arrival at step t is a gap of t, as in Yi's pseudo-code) or
	// FirstArrivalSkip (no gap until a second arrival); default DefaultFirstArrival. Streaming,
	// multihash, lsh.
	FirstArrival FirstArrival `toml:"first_arrival"`
	// Mode of the exact estimator: ModeOnline (counts of the items observed so far) or
	// ModeStatic (counts of a full pass, Env.Counts); default DefaultMode.
	Mode Mode `toml:"mode"`
	// Formula turns a frequency q into p for exact and unigram: FormulaBinomial p = 1-(1-q)^B or
	// FormulaLinear p = min(1, B·q); default DefaultFormula.
	Formula Formula `toml:"formula"`
	// Concurrent makes the estimator safe for many goroutines: lock-free for streaming, multihash
	// and lsh (see the package documentation for what a conflict loses), a mutex for online exact;
	// unigram and static exact are read-only and always safe. Default false.
	Concurrent bool `toml:"concurrent"`
	// LSH configures kind lsh.
	LSH LSHSettings `toml:"lsh"`
}

// LSHSettings is the [estimator.lsh] table.
type LSHSettings struct {
	// Projections is the number of random unit projections; default DefaultLSHProjections.
	Projections int `toml:"projections"`
	// Bins is the number of equal bins each projection of the unit embedding is cut into on
	// [-1, 1]; default DefaultLSHBins. bins^projections must fit in 64 bits. In dimension d a projection of a
	// unit vector has standard deviation about 1/√d, so only the central bins are used unless bins
	// is large.
	Bins int `toml:"bins"`
	// Inner is the estimator the keys feed: KindStreaming or KindMultihash; default
	// DefaultLSHInner (the cascade of docs/streaming-estimator.md §8).
	Inner Kind `toml:"inner"`
}

// Resolve fills the zero fields with their defaults and validates every field. Errors start with
// the TOML key of the field.
func (s *Settings) Resolve() error {
	setting.Default(&s.Kind, DefaultKind)
	if err := setting.OneOf("kind", s.Kind, kinds); err != nil {
		return err
	}
	hashing := s.Kind == KindStreaming || s.Kind == KindMultihash || s.Kind == KindLSH
	exact := s.Kind == KindExact
	if err := setting.First(
		s.onlyFor("alpha", s.Alpha != 0, hashing),
		s.onlyFor("buckets", s.Buckets != 0, hashing),
		s.onlyFor("hashes", s.Hashes != 0, hashing),
		s.onlyFor("init", s.Init != "", hashing),
		s.onlyFor("first_arrival", s.FirstArrival != "", hashing),
		s.onlyFor("mode", s.Mode != "", exact),
		s.onlyFor("formula", s.Formula != "", exact || s.Kind == KindUnigram),
		s.onlyFor("lsh", s.LSH != (LSHSettings{}), s.Kind == KindLSH),
	); err != nil {
		return err
	}
	if hashing {
		return s.resolveHashing()
	}
	if exact {
		setting.Default(&s.Mode, DefaultMode)
	}
	setting.Default(&s.Formula, DefaultFormula)
	return setting.First(
		s.checkMode(),
		setting.OneOf("formula", s.Formula, formulas),
	)
}

// onlyFor rejects a field set for a kind that does not use it.
func (s *Settings) onlyFor(key string, set, used bool) error {
	return setting.OnlyFor(key, set, used, "not used by kind %s", s.Kind)
}

// checkMode checks the mode of the exact kind (empty for the others).
func (s *Settings) checkMode() error {
	if s.Mode == "" {
		return nil
	}
	return setting.OneOf("mode", s.Mode, modes)
}

// resolveHashing fills and checks the fields of the hashing kinds: streaming, multihash and lsh.
func (s *Settings) resolveHashing() error {
	setting.Default(&s.Alpha, DefaultAlpha)
	setting.Default(&s.Buckets, DefaultBuckets)
	if s.Kind == KindLSH {
		if err := s.LSH.resolve(); err != nil {
			return err
		}
	}
	single := s.Kind == KindStreaming || (s.Kind == KindLSH && s.LSH.Inner == KindStreaming)
	if single {
		setting.Default(&s.Hashes, 1)
	}
	setting.Default(&s.Hashes, DefaultHashes)
	setting.Default(&s.Init, DefaultInit)
	setting.Default(&s.FirstArrival, DefaultFirstArrival)
	return setting.First(
		setting.Range("alpha", s.Alpha, setting.OpenClosed(0.0, 1)),
		setting.AtLeast("buckets", s.Buckets, 1),
		setting.AtLeast("hashes", s.Hashes, 1),
		setting.OnlyFor("hashes", s.Hashes > 1, !single,
			"streaming uses one hash, got %d (use kind multihash, or lsh.inner = multihash)", s.Hashes),
		setting.Require("hashes", s.Hashes <= s.Buckets, "must be at most buckets (%d), got %d", s.Buckets, s.Hashes),
		setting.OneOf("init", s.Init, inits),
		setting.OneOf("first_arrival", s.FirstArrival, firstArrivals),
	)
}

func (l *LSHSettings) resolve() error {
	setting.Default(&l.Projections, DefaultLSHProjections)
	setting.Default(&l.Bins, DefaultLSHBins)
	setting.Default(&l.Inner, DefaultLSHInner)
	return setting.First(
		setting.AtLeast("lsh.projections", l.Projections, 1),
		setting.AtLeast("lsh.bins", l.Bins, 2),
		setting.Require("lsh.projections", float64(l.Projections)*math.Log2(float64(max(l.Bins, 1))) <= 64,
			"bins^projections = %d^%d does not fit in 64 bits", l.Bins, l.Projections),
		setting.OneOf("lsh.inner", l.Inner, innerKinds),
	)
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
func (e Env) initialGap(init Init) (float64, error) {
	if init == InitOne {
		return 1, nil
	}
	if e.CorpusSize < 1 {
		return 0, fmt.Errorf("init: %q needs the corpus size (Env.CorpusSize > 0); use %q", InitUniform, InitOne)
	}
	return math.Max(1, float64(e.CorpusSize)/float64(e.BatchSize)), nil
}
