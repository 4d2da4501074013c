package samplers

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/candidates"
)

func ptr(v float64) *float64 { return &v }

// TestResolve: defaults are filled per kind, and an option a kind does not use is an error naming
// the key.
func TestResolve(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   Settings
		want Settings
	}{
		{"zero is in_batch", Settings{}, Settings{Kind: KindInBatch, Declare: DeclareLaw}},
		{"uniform negatives", Settings{Kind: KindUniform}, Settings{Kind: KindUniform, Negatives: DefaultNegatives, Declare: DeclareLaw}},
		{"mixed keeps m", Settings{Kind: KindMixed, Negatives: 5}, Settings{Kind: KindMixed, Negatives: 5, Declare: DeclareLaw}},
		{"popularity beta", Settings{Kind: KindPopularity}, Settings{Kind: KindPopularity, Negatives: DefaultNegatives, Beta: ptr(DefaultBeta), Declare: DeclareLaw}},
		{"declare kept", Settings{Kind: KindUniform, Negatives: 3, Declare: DeclareUnigram}, Settings{Kind: KindUniform, Negatives: 3, Declare: DeclareUnigram}},
		{"popularity beta 0 is uniform", Settings{Kind: KindPopularity, Beta: ptr(0)}, Settings{Kind: KindPopularity, Negatives: DefaultNegatives, Beta: ptr(0), Declare: DeclareLaw}},
		{"popularity without replacement beta", Settings{Kind: KindPopularityWithoutReplacement},
			Settings{Kind: KindPopularityWithoutReplacement, Negatives: DefaultNegatives, Beta: ptr(DefaultBeta), Declare: DeclareLaw}},
		{"hard in-batch pool", Settings{Kind: KindHard}, Settings{Kind: KindHard, Negatives: DefaultNegatives, Pool: PoolInBatch, Declare: DeclareLaw}},
		{"hard uniform pool", Settings{Kind: KindHard, Pool: PoolUniform, FalseNegativeMargin: 0.95},
			Settings{Kind: KindHard, Negatives: DefaultNegatives, Pool: PoolUniform, PoolSize: DefaultPoolSize, FalseNegativeMargin: 0.95, Declare: DeclareLaw}},
		{"sce buckets", Settings{Kind: KindSCE}, Settings{Kind: KindSCE, Negatives: DefaultNegatives, Buckets: DefaultBuckets, BucketRows: DefaultBucketRows, Declare: DeclareLaw}},
		{"unconsumed", Settings{Kind: KindUnconsumed, Negatives: 7}, Settings{Kind: KindUnconsumed, Negatives: 7, Declare: DeclareLaw}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.in
			if err := s.Resolve(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s, tt.want) {
				t.Errorf("got %+v, want %+v", s, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		in   Settings
		want string
	}{
		{Settings{Kind: "unifrom"}, `kind: unknown "unifrom"`},
		{Settings{Negatives: 4}, "negatives: sampler in_batch draws no negatives"},
		{Settings{Kind: KindFull, Negatives: 4}, "negatives: sampler full draws no negatives"},
		{Settings{Kind: KindUniform, Negatives: -1}, "negatives: must be > 0, got -1"},
		{Settings{Kind: KindMixed, Beta: ptr(1)}, "beta: only for popularity and popularity_without_replacement, not sampler mixed"},
		{Settings{Kind: KindPopularity, Beta: ptr(-1)}, "beta:"},
		{Settings{Kind: KindUniform, Options: map[string]any{"x": 1}}, "options.x: sampler uniform has no options"},
		{Settings{Kind: KindUniform, Declare: "counts"}, `declare: unknown "counts"`},
	} {
		s := tt.in
		if err := s.Resolve(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

// fixed is a registered test sampler: its one option is the item it draws.
type fixed struct{ item int32 }

type fixedOptions struct {
	Item int `toml:"item"`
}

func (fixed) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, Extra: 1}}
}
func (f fixed) Draw(_ *rand.Rand, _ *Data, pos, rows []int32) {
	copy(rows, pos)
	rows[len(pos)] = f.item
}
func (f fixed) Declare(_ *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	declareEach(f.Shape(), pos, rows, c, func(item int32) (float64, float64) {
		if item == f.item {
			return 0, 0
		}
		return -1e300, -1e300
	})
	return nil
}

// TestRegister: a registered sampler is selected by name with its options decoded strictly; bad
// names and duplicates are errors.
func TestRegister(t *testing.T) {
	c := Custom{
		New: func(o any, _ int) (Sampler, error) {
			return fixed{item: int32(o.(*fixedOptions).Item)}, nil
		},
		Options: func() any { return new(fixedOptions) },
	}
	if err := Register("fixed_item_test", c); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		c    Custom
		want string
	}{
		{"fixed_item_test", c, "already registered"},
		{"uniform", c, "built in"},
		{"Bad-Name", c, "snake_case"},
		{"no_new_test", Custom{}, "has no New"},
	} {
		if err := Register(tt.name, tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Register(%q): got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	smp, err := New(Settings{Kind: "fixed_item_test", Options: map[string]any{"item": 3}})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int32, 3)
	smp.Draw(nil, nil, []int32{0, 1}, rows)
	if rows[2] != 3 {
		t.Errorf("rows %v: the option item = 3 did not reach the sampler", rows)
	}
	_, err = New(Settings{Kind: "fixed_item_test", Options: map[string]any{"itme": 3}})
	if want := "options.itme: unknown option of sampler fixed_item_test"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
	// The built-in kinds' own keys are not a registered sampler's: written, they are errors.
	beta := 0.5
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kind: "fixed_item_test", Beta: &beta}, "beta: only for popularity and popularity_without_replacement, not sampler fixed_item_test"},
		{Settings{Kind: "fixed_item_test", MemoryBatches: 2}, "memory_batches: only for memory, not sampler fixed_item_test"},
		{Settings{Kind: "fixed_item_test", Of: []Settings{{}, {}}}, "of: only for mixture, not sampler fixed_item_test"},
	} {
		if err := tt.s.Resolve(); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Resolve(%+v) = %v, want an error beginning %q", tt.s, err, tt.want)
		}
	}
	// A New that returns no sampler and no error is an error naming the sampler, not a nil
	// sampler that fails later.
	for name, smp := range map[string]Sampler{"nil_sampler_test": nil, "typed_nil_sampler_test": (*memory)(nil)} {
		if err := Register(name, Custom{New: func(any, int) (Sampler, error) { return smp, nil }}); err != nil {
			t.Fatal(err)
		}
		if _, err := New(Settings{Kind: Kind(name)}); err == nil || !strings.Contains(err.Error(), "kind: sampler "+name+": its New returned no sampler") {
			t.Errorf("%s: got %v", name, err)
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("fixed_item_test")); err != nil || k != "fixed_item_test" {
		t.Errorf("UnmarshalText of a registered name: %v, %q", err, k)
	}
}

// TestNewErrorKey: an error of a registered sampler's New is about the key of [sampler] its
// message begins with ("negatives: …", "options.<key>: …"), put first with the sampler named
// after it, and about kind when it begins with none; it wraps New's error.
func TestNewErrorKey(t *testing.T) {
	errFull := errors.New("the corpus is full")
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"negatives", errors.New("negatives: must be even, got 3"), "negatives: sampler keyed_error_test: must be even, got 3"},
		{"an option", errors.New("options.width: must be at most 1"), "options.width: sampler keyed_error_test: must be at most 1"},
		{"a word that is no key", fmt.Errorf("corpus: %w", errFull), "kind: sampler keyed_error_test: corpus: the corpus is full"},
		{"no key", errFull, "kind: sampler keyed_error_test: the corpus is full"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := Kind("keyed_error_test")
			err := Register(string(name), Custom{New: func(any, int) (Sampler, error) { return nil, tt.err }})
			if err != nil {
				t.Fatal(err)
			}
			defer registry.Remove(name)
			_, err = New(Settings{Kind: name, Negatives: 3})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("%v does not wrap New's error", err)
			}
		})
	}
}

// TestGeometryUniform: a geometry says its drawn items are uniform draws (1/M each) exactly for
// the kinds that draw so: uniform, uniform_per_row, mixed's extra items, popularity at β = 0
// (count^0 = 1 for every item) and a mixture whose drawing components draw uniformly (in-batch
// and uniform is mixed's geometry); not for popularity at β > 0, nor for the kinds that draw
// nothing or the batch's positives.
func TestGeometryUniform(t *testing.T) {
	for _, tt := range []struct {
		s    Settings
		want bool
	}{
		{Settings{Kind: KindUniform, Negatives: 4}, true},
		{Settings{Kind: KindUniformPerRow, Negatives: 4}, true},
		{Settings{Kind: KindMixed, Negatives: 4}, true},
		{Settings{Kind: KindPopularity, Negatives: 4, Beta: ptr(0)}, true},
		{Settings{Kind: KindPopularity, Negatives: 4}, false},
		{Settings{Kind: KindPopularity, Negatives: 4, Beta: ptr(1)}, false},
		{Settings{Kind: KindInBatch}, false},
		{Settings{Kind: KindInBatchUnique, Negatives: 4}, false},
		{Settings{Kind: KindMemory, MemoryBatches: 2}, false},
		{Settings{Kind: KindFull}, false},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindUniform, Negatives: 2}, {Kind: KindUniformPerRow, Negatives: 2}}}, true},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindUniform, Negatives: 2}, {Kind: KindPopularity, Negatives: 2}}}, false},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch}, {Kind: KindUniform, Negatives: 2}}}, true}, // mixed's geometry
	} {
		s := tt.s
		if err := s.Resolve(); err != nil {
			t.Fatalf("%+v: %v", tt.s, err)
		}
		_, g, err := Build(s)
		if err != nil {
			t.Fatalf("%+v: %v", tt.s, err)
		}
		if g.Uniform != tt.want {
			t.Errorf("%s: geometry %v has Uniform %t, want %t", s.Kind, g, g.Uniform, tt.want)
		}
	}
}

// TestQFromInclusion: in_batch_unique's q is p̂/min(k, D), from the positives' inclusion
// probability (an estimator's), and so is a mixture's with it as a component; the in_batch,
// uniform and mixed samplers declare q from the training frequency, and declare = "unigram"
// declares the frequency whatever the kind.
func TestQFromInclusion(t *testing.T) {
	unique := Settings{Kind: KindInBatchUnique, Negatives: 8}
	for _, tc := range []struct {
		s    Settings
		want bool
	}{
		{Settings{Kind: KindInBatch}, false},
		{Settings{Kind: KindUniform, Negatives: 8}, false},
		{Settings{Kind: KindMixed, Negatives: 8}, false},
		{unique, true},
		{Settings{Kind: KindMixture, Of: []Settings{unique, {Kind: KindUniformPerRow, Negatives: 8}}}, true},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindUniform, Negatives: 4}, {Kind: KindUniformPerRow, Negatives: 8}}}, false},
		{Settings{Kind: KindInBatchUnique, Negatives: 8, Declare: DeclareUnigram}, false},
	} {
		t.Run(string(tc.s.Kind), func(t *testing.T) {
			if err := tc.s.Resolve(); err != nil {
				t.Fatal(err)
			}
			if got := tc.s.QFromInclusion(); got != tc.want {
				t.Errorf("%+v: QFromInclusion %v, want %v", tc.s, got, tc.want)
			}
		})
	}
}
