package samplers

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/setting"
)

// Kind is the name of a sampler, Settings.Kind: one of the Kind constants or a name added with
// Register.
type Kind string

// Built-in samplers, in their documented order (each file's type documents its law).
const (
	KindInBatch       Kind = "in_batch"
	KindUniform       Kind = "uniform"
	KindMixed         Kind = "mixed"
	KindFull          Kind = "full"
	KindPopularity    Kind = "popularity"
	KindMixture       Kind = "mixture"
	KindInBatchUnique Kind = "in_batch_unique"
	KindMemory        Kind = "memory"
	KindUniformPerRow Kind = "uniform_per_row"
	// The samplers below are in files of their own: withoutreplacement.go, unconsumed.go,
	// hard.go and sce.go.
	KindUniformWithoutReplacement    Kind = "uniform_without_replacement"
	KindPopularityWithoutReplacement Kind = "popularity_without_replacement"
	KindUnconsumed                   Kind = "unconsumed"
	KindHard                         Kind = "hard"
	KindSCE                          Kind = "sce"
)

// builtins are the built-in kinds in their documented order.
var builtins = []Kind{KindInBatch, KindUniform, KindMixed, KindFull, KindPopularity, KindMixture, KindInBatchUnique, KindMemory,
	KindUniformPerRow, KindUniformWithoutReplacement, KindPopularityWithoutReplacement, KindUnconsumed, KindHard, KindSCE}

// UnmarshalText sets k from its name, a built-in or a registered sampler's; an unknown name is an
// error that lists the allowed ones.
func (k *Kind) UnmarshalText(b []byte) error { return setting.Unmarshal(k, b, Kinds()) }

// Defaults filled in by Resolve.
const (
	DefaultKind      = KindInBatch
	DefaultNegatives = 64   // m of uniform, mixed, popularity, in_batch_unique and uniform_per_row
	DefaultBeta      = 0.75 // β of popularity (word2vec's unigram exponent)
	DefaultMemory    = 1    // memory_batches of memory
	DefaultDeclare   = DeclareLaw
	DefaultPool      = PoolInBatch
	DefaultPoolSize  = 1024 // pool_size of hard with a uniform pool
	// DefaultBuckets and DefaultBucketRows are sce's buckets and bucket_rows: 2·√R for the
	// R = 256 rows of train.batch_size's default, the rule of Mezentsev et al.'s grid.
	DefaultBuckets    = 32
	DefaultBucketRows = 32
)

// Pool is where hard takes the candidates it ranks, Settings.Pool.
type Pool string

// Pools of hard.
const (
	// PoolInBatch: the batch's positives, one column per distinct item other than the row's own
	// positive.
	PoolInBatch Pool = "in_batch"
	// PoolUniform: pool_size distinct items drawn uniformly without replacement, shared by
	// every row.
	PoolUniform Pool = "uniform"
)

// pools are the allowed Pool values.
var pools = []Pool{PoolInBatch, PoolUniform}

// UnmarshalText sets p from its name; an unknown name is an error that lists the allowed ones.
func (p *Pool) UnmarshalText(b []byte) error { return setting.Unmarshal(p, b, pools) }

// Settings is the [sampler] section of a config. The zero value is in-batch sampling (Yi et al.
// 2019). An option that the kind does not use must be left unset: Resolve rejects it.
type Settings struct {
	// Kind selects the sampler (default DefaultKind).
	Kind Kind `toml:"kind"`
	// Negatives is the number m of drawn items per step of uniform, mixed, popularity,
	// in_batch_unique, uniform_without_replacement and popularity_without_replacement, per row of
	// uniform_per_row and unconsumed, the k highest-scoring items of each row's pool of hard and
	// the items of each bucket of sce (default DefaultNegatives); it must be 0 for in_batch and
	// full, which draw none. A registered sampler receives it as Custom.New's negatives,
	// unchecked.
	Negatives int `toml:"negatives"`
	// Beta is the exponent β of popularity and popularity_without_replacement, weights
	// count^β (default DefaultBeta; 0 is the uniform law, 1 the unigram). Only for those two.
	Beta *float64 `toml:"beta"`
	// Pool is where hard takes the candidates it ranks (default DefaultPool). Only for hard.
	Pool Pool `toml:"pool"`
	// PoolSize is the number of distinct items of hard's uniform pool, more than negatives
	// (default DefaultPoolSize). Only for hard with pool = "uniform".
	PoolSize int `toml:"pool_size"`
	// FalseNegativeMargin is hard's false-negative guard, the percentage of NV-Retriever's
	// TopK-PercPos (Moreira et al. 2024): a pool item scoring above margin·s⁺, s⁺ the row's
	// positive score, is dropped before the top negatives are taken; in (0, 1] (the paper uses
	// 0.95); 0, the default, is no guard. Only for hard.
	FalseNegativeMargin float64 `toml:"false_negative_margin" zero:"no guard"`
	// Buckets is sce's number of buckets n_b, at most the step's rows (default DefaultBuckets).
	// Only for sce.
	Buckets int `toml:"buckets"`
	// BucketRows is the number of rows sce puts in each bucket, at most the step's rows
	// (default DefaultBucketRows). Only for sce.
	BucketRows int `toml:"bucket_rows"`
	// MemoryBatches is the number K of earlier batches memory keeps as extra negatives (default
	// DefaultMemory). Only for memory.
	MemoryBatches int `toml:"memory_batches"`
	// Of are mixture's two components, [[sampler.of]] tables (each a sampler's settings; its
	// audit key must be left unset). Only for mixture, which requires exactly two.
	Of []Settings `toml:"of"`
	// Declare is what the sampler declares for the loss to subtract (default DefaultDeclare):
	// DeclareLaw its own law, DeclareUnigram every item's training frequency whatever it drew.
	Declare Declaration `toml:"declare"`
	// Audit writes sampler_audit.csv for each run: per item, the Q the loss subtracted against the
	// sampler's empirical frequency (default false).
	Audit bool `toml:"audit"`
	// Options are the options of a sampler added with Register, the [sampler.options] table,
	// decoded strictly into its options struct. Must be empty for the built-in kinds.
	Options map[string]any `toml:"options,omitempty"`
}

// QFromInclusion reports whether the per-draw q the resolved settings declare derives from the
// positives' inclusion probability p̂ (the estimator's) rather than from their training
// frequency: in_batch_unique's q = p/min(k, D) (docs/samplers.md), a mixture with such a
// component, and a registered sampler, whose law the workbench cannot see. With declare =
// "unigram" the declaration is the training frequency whatever was drawn.
func (s Settings) QFromInclusion() bool {
	if s.Declare == DeclareUnigram {
		return false
	}
	if _, ok := registered(s.Kind); ok || s.Kind == KindInBatchUnique {
		return true
	}
	return slices.ContainsFunc(s.Of, Settings.QFromInclusion)
}

// drawsNegatives reports whether a built-in kind draws Negatives items per step.
func drawsNegatives(k Kind) bool {
	switch k {
	case KindUniform, KindMixed, KindPopularity, KindInBatchUnique, KindUniformPerRow, KindUniformWithoutReplacement,
		KindPopularityWithoutReplacement, KindUnconsumed, KindHard, KindSCE:
		return true
	}
	return false
}

// weighted reports whether a built-in kind draws by count^β (beta).
func weighted(k Kind) bool { return k == KindPopularity || k == KindPopularityWithoutReplacement }

// Resolve fills the zero fields with their documented defaults in place and validates the
// settings; errors start with the key.
func (s *Settings) Resolve() error {
	setting.Default(&s.Kind, DefaultKind)
	setting.Default(&s.Declare, DefaultDeclare)
	if err := setting.First(setting.OneOf("kind", s.Kind, Kinds()), setting.OneOf("declare", s.Declare, declarations)); err != nil {
		return err
	}
	if _, ok := registered(s.Kind); ok {
		// A registered sampler reads negatives and its options; the built-in kinds' own keys
		// would be ignored.
		beta := 0.0
		if s.Beta != nil {
			beta = *s.Beta
		}
		if err := setting.First(
			setting.OnlyFor("beta", s.Beta != nil, false, "only for popularity and popularity_without_replacement, not sampler %s; leave it unset, got %v", s.Kind, beta),
			setting.OnlyFor("memory_batches", s.MemoryBatches != 0, false, "only for memory, not sampler %s; leave it 0, got %d", s.Kind, s.MemoryBatches),
			setting.OnlyFor("of", len(s.Of) > 0, false, "only for mixture, not sampler %s", s.Kind),
			s.resolveMined(),
		); err != nil {
			return err
		}
		_, err := s.decodeOptions()
		return err
	}
	if drawsNegatives(s.Kind) {
		setting.Default(&s.Negatives, DefaultNegatives)
	}
	if err := s.resolveOf(); err != nil {
		return err
	}
	if s.Kind == KindMemory {
		setting.Default(&s.MemoryBatches, DefaultMemory)
	}
	if weighted(s.Kind) && s.Beta == nil {
		b := DefaultBeta
		s.Beta = &b
	}
	if err := setting.First(
		setting.OnlyFor("negatives", s.Negatives != 0, drawsNegatives(s.Kind),
			"sampler %s draws no negatives; leave it 0, got %d", s.Kind, s.Negatives),
		setting.Require("negatives", s.Negatives >= 0, "must be > 0, got %d", s.Negatives),
		setting.OnlyFor("memory_batches", s.MemoryBatches != 0, s.Kind == KindMemory, "only for memory, not sampler %s", s.Kind),
		setting.Require("memory_batches", s.MemoryBatches >= 0, "must be > 0, got %d", s.MemoryBatches),
		setting.OnlyFor("beta", s.Beta != nil, weighted(s.Kind), "only for popularity and popularity_without_replacement, not sampler %s", s.Kind),
		s.resolveMined(),
	); err != nil {
		return err
	}
	if s.Beta != nil {
		if err := setting.Range("beta", *s.Beta, setting.Closed(0.0, 10.0)); err != nil {
			return err
		}
	}
	_, err := s.decodeOptions()
	return err
}

// resolveOf resolves mixture's components.
func (s *Settings) resolveOf() error {
	if err := setting.First(
		setting.OnlyFor("of", len(s.Of) > 0, s.Kind == KindMixture, "only for mixture, not sampler %s", s.Kind),
		setting.Require("of", s.Kind != KindMixture || len(s.Of) == 2, "mixture needs two components, got %d", len(s.Of)),
	); err != nil {
		return err
	}
	for i := range s.Of {
		if s.Of[i].Audit {
			return fmt.Errorf("of[%d].audit: set audit on the mixture, not on a component", i)
		}
		if err := s.Of[i].Resolve(); err != nil {
			return fmt.Errorf("of[%d].%w", i, err)
		}
	}
	return nil
}

// New resolves s and returns its sampler.
func New(s Settings) (Sampler, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	smp, err := newKind(s)
	if err != nil || s.Declare == DeclareLaw {
		return smp, err
	}
	if smp.Shape().QUndefined {
		return nil, undefinedErr("declare", s.Kind, "declaring the unigram law for its columns would subtract a Q it does not follow")
	}
	return unigram{smp}, nil
}

// Build resolves s and returns its sampler, as New does, and the sampler's geometry named after
// its kind (candidates.Geometry.Sampler), checked: what a training run and the check of its loss
// need.
func Build(s Settings) (Sampler, candidates.Geometry, error) {
	smp, err := New(s)
	if err != nil {
		return nil, candidates.Geometry{}, err
	}
	g := smp.Shape().Geometry
	g.Sampler = string(cmp.Or(s.Kind, DefaultKind))
	if err := g.Check(); err != nil {
		return nil, candidates.Geometry{}, fmt.Errorf("kind: %w", err)
	}
	return smp, g, nil
}

// newKind returns the sampler of resolved settings s, declaring its own law.
func newKind(s Settings) (Sampler, error) {
	if c, ok := registered(s.Kind); ok {
		opts, err := s.decodeOptions()
		if err != nil {
			return nil, err
		}
		smp, err := c.New(opts, s.Negatives)
		switch {
		case err != nil:
			return nil, newError(s.Kind, err)
		case smp == nil || reflect.ValueOf(smp).Kind() == reflect.Pointer && reflect.ValueOf(smp).IsNil():
			return nil, fmt.Errorf("kind: sampler %s: its New returned no sampler (nil) and no error", s.Kind)
		}
		return smp, nil
	}
	switch s.Kind {
	case KindUniform:
		return uniform{m: s.Negatives}, nil
	case KindMixed:
		return mixed{m: s.Negatives}, nil
	case KindFull:
		return full{}, nil
	case KindPopularity:
		return &popularity{m: s.Negatives, beta: *s.Beta}, nil
	case KindMemory:
		return &memory{k: s.MemoryBatches}, nil
	case KindInBatchUnique:
		return &inBatchUnique{k: s.Negatives}, nil
	case KindUniformPerRow:
		return uniformPerRow{m: s.Negatives}, nil
	case KindUniformWithoutReplacement:
		return newWithoutReplacement(s.Negatives, 0, true), nil
	case KindPopularityWithoutReplacement:
		return newWithoutReplacement(s.Negatives, *s.Beta, false), nil
	case KindUnconsumed:
		return &unconsumed{m: s.Negatives}, nil
	case KindHard:
		return newHard(s), nil
	case KindSCE:
		return &sce{n: s.Negatives, buckets: s.Buckets, rows: s.BucketRows}, nil
	case KindMixture:
		var of [2]Sampler
		for i := range of {
			smp, err := New(s.Of[i])
			if err != nil {
				return nil, fmt.Errorf("of[%d].%w", i, err)
			}
			of[i] = smp
		}
		return newMixture(of[0], of[1])
	}
	return inBatch{}, nil
}
