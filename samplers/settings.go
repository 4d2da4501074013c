package samplers

import (
	"cmp"
	"fmt"

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
)

// builtins are the built-in kinds in their documented order.
var builtins = []Kind{KindInBatch, KindUniform, KindMixed, KindFull, KindPopularity, KindMixture, KindInBatchUnique, KindMemory, KindUniformPerRow}

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
)

// Settings is the [sampler] section of a config. The zero value is in-batch sampling (Yi et al.
// 2019). An option that the kind does not use must be left unset: Resolve rejects it.
type Settings struct {
	// Kind selects the sampler (default DefaultKind).
	Kind Kind `toml:"kind"`
	// Negatives is the number m of drawn items per step of uniform, mixed, popularity and
	// in_batch_unique, and per row of uniform_per_row (default DefaultNegatives); it must be 0 for
	// in_batch and full, which draw none. A registered sampler receives it as Custom.New's
	// negatives, unchecked.
	Negatives int `toml:"negatives"`
	// Beta is popularity's exponent β, q ∝ count^β (default DefaultBeta; 0 is the uniform law,
	// 1 the unigram). Only for popularity.
	Beta *float64 `toml:"beta"`
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

// drawsNegatives reports whether a built-in kind draws Negatives items per step.
func drawsNegatives(k Kind) bool {
	return k == KindUniform || k == KindMixed || k == KindPopularity || k == KindInBatchUnique || k == KindUniformPerRow
}

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
			setting.OnlyFor("beta", s.Beta != nil, false, "only for popularity, not sampler %s; leave it unset, got %v", s.Kind, beta),
			setting.OnlyFor("memory_batches", s.MemoryBatches != 0, false, "only for memory, not sampler %s; leave it 0, got %d", s.Kind, s.MemoryBatches),
			setting.OnlyFor("of", len(s.Of) > 0, false, "only for mixture, not sampler %s", s.Kind),
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
	if s.Kind == KindPopularity && s.Beta == nil {
		b := DefaultBeta
		s.Beta = &b
	}
	if err := setting.First(
		setting.OnlyFor("negatives", s.Negatives != 0, drawsNegatives(s.Kind),
			"sampler %s draws no negatives; leave it 0, got %d", s.Kind, s.Negatives),
		setting.Require("negatives", s.Negatives >= 0, "must be > 0, got %d", s.Negatives),
		setting.OnlyFor("memory_batches", s.MemoryBatches != 0, s.Kind == KindMemory, "only for memory, not sampler %s", s.Kind),
		setting.Require("memory_batches", s.MemoryBatches >= 0, "must be > 0, got %d", s.MemoryBatches),
		setting.OnlyFor("beta", s.Beta != nil, s.Kind == KindPopularity, "only for popularity, not sampler %s", s.Kind),
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
		if err != nil {
			return nil, fmt.Errorf("sampler %s: %w", s.Kind, err)
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
