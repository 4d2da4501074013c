package samplerstest_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

func newSampler(t *testing.T, s samplers.Settings) samplers.Sampler {
	t.Helper()
	smp, err := samplers.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return smp
}

// TestAuditCorrect: built-in samplers, shared and per-row, pass the audit of their declarations,
// on batches and on the rows of sequences with padding.
func TestAuditCorrect(t *testing.T) {
	for _, s := range []samplers.Settings{{Kind: samplers.KindInBatch}, {Kind: samplers.KindPopularity, Negatives: 8},
		{Kind: samplers.KindUniformPerRow, Negatives: 3}} {
		smp := newSampler(t, s)
		if err := samplerstest.Audit(smp, samplerstest.SkewedData(8), 4000, 1); err != nil {
			t.Errorf("%s: %v", s.Kind, err)
		}
		if err := samplerstest.AuditPositions(smp, samplerstest.SkewedData(12), 4, 4, 1, 4000, 1); err != nil {
			t.Errorf("%s, positions: %v", s.Kind, err)
		}
	}
}

// TestAuditOverstated: a declaration 10% too large fails, with an error naming the item and the
// quantity, declared and empirical.
func TestAuditOverstated(t *testing.T) {
	wrong := samplerstest.Overstated(newSampler(t, samplers.Settings{Kind: samplers.KindUniform, Negatives: 8}), 1.1)
	err := samplerstest.Audit(wrong, samplerstest.SkewedData(8), 4000, 1)
	if err == nil {
		t.Fatal("a declaration 10% too large passed the audit")
	}
	t.Log(err)
	if !regexp.MustCompile(`^samplerstest: item \d+: .* declared [0-9.]+, empirical [0-9.]+ .*\(tolerance [0-9.]+\)$`).MatchString(err.Error()) {
		t.Errorf("error %q does not name the item and its declared and empirical values", err)
	}
}

// outside draws its first drawn item row outside the corpus.
type outside struct{ samplers.Sampler }

func (s outside) Draw(rng *rand.Rand, d *samplers.Data, pos, rows []int32) {
	s.Sampler.Draw(rng, d, pos, rows)
	rows[len(pos)] = int32(d.Items)
}

// failing returns err from Declare.
type failing struct {
	samplers.Sampler
	err error
}

func (s failing) Declare(*samplers.Data, []int32, []int32, samplers.Law, *candidates.Step) error {
	return s.err
}

// TestAuditErrors: an item drawn outside the corpus, an error from Declare and a sampler without
// a law are errors, not panics.
func TestAuditErrors(t *testing.T) {
	uniform := newSampler(t, samplers.Settings{Kind: samplers.KindUniform, Negatives: 8})
	d := samplerstest.SkewedData(8)
	if err := samplerstest.Audit(outside{uniform}, d, 10, 1); err == nil || !strings.Contains(err.Error(), "item 20, outside the corpus [0, 20)") {
		t.Errorf("an item drawn outside the corpus: %v", err)
	}
	errDeclare := errors.New("no law today")
	if err := samplerstest.Audit(failing{uniform, errDeclare}, d, 10, 1); !errors.Is(err, errDeclare) {
		t.Errorf("Declare's error: %v", err)
	}
	hard := newSampler(t, samplers.Settings{Kind: samplers.KindHard, Negatives: 2})
	if err := samplerstest.Audit(hard, d, 10, 1); err == nil || !strings.Contains(err.Error(), "Q undefined") {
		t.Errorf("a sampler without a law: %v", err)
	}
	if err := samplerstest.AuditPositions(uniform, d, 4, 4, 1, 10, 1); err == nil {
		t.Error("d.Batch 8 for 4 windows of 3 positions with a positive was accepted")
	}
}

// TestAuditDeclarations: declarations that the draws' frequencies cannot see are checked too —
// the rows' own positives under layout first (whose column holds no item: a forgotten row
// declaration reads log q = 0), NaN or positive log-probabilities, and a p declared far below an
// item's frequency (items of small declared p were skipped whatever their frequency).
func TestAuditDeclarations(t *testing.T) {
	uniform := newSampler(t, samplers.Settings{Kind: samplers.KindUniform, Negatives: 8})
	popularity := newSampler(t, samplers.Settings{Kind: samplers.KindPopularity, Negatives: 8})
	d := samplerstest.SkewedData(8)
	for _, c := range []struct {
		name  string
		smp   samplers.Sampler
		spoil func(c *candidates.Step)
		want  string
	}{
		{"row q forgotten", popularity, func(c *candidates.Step) { clear(c.Row(candidates.LogQ)) },
			`is declared q = 1, p = `},
		{"row p wrong", popularity, func(c *candidates.Step) {
			for i := range c.Row(candidates.LogP) {
				c.Row(candidates.LogP)[i] = math.Log(0.5)
			}
		}, `: the probabilities are the item's, the same in both`},
		{"NaN column q", uniform, func(c *candidates.Step) { c.Col(candidates.LogQ)[1] = math.NaN() }, `column 1, item \d+, declares log q = NaN, not the log of a probability`},
		{"positive row p", uniform, func(c *candidates.Step) { c.Row(candidates.LogP)[0] = 0.5 }, `row 0, item \d+, declares log p = 0\.5, not the log of a probability`},
		{"tiny p", popularity, func(c *candidates.Step) {
			for _, side := range [][]float64{c.Col(candidates.LogP), c.Row(candidates.LogP)} {
				for i := range side {
					side[i] = math.Log(0.01)
				}
			}
		}, `item \d+: inclusion probability p declared 0\.0100, empirical`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := samplerstest.Audit(samplerstest.Spoiled(c.smp, c.spoil), d, 200, 1); err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Errorf("%v, want an error matching %q", err, c.want)
			}
		})
	}
}
