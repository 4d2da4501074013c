package samplers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// newColumnsFor returns the step smp declares at batch size b over m items, with the side inputs
// it fills.
func newColumnsFor(smp Sampler, b, m int) *candidates.Step {
	return must(samplerstest.NewStep(smp, smp.Shape().Geometry, b, m))
}

// colQ, colP, posQ and posP are a step's log q and log p of its columns and of its rows'
// positives.
func colQ(c *candidates.Step) []float64 { return c.Col(candidates.LogQ) }
func colP(c *candidates.Step) []float64 { return c.Col(candidates.LogP) }
func posQ(c *candidates.Step) []float64 { return c.Row(candidates.LogQ) }
func posP(c *candidates.Step) []float64 { return c.Row(candidates.LogP) }

// builtinSettings are the built-in samplers the audit checks.
func builtinSettings() []Settings {
	beta := 0.5
	return []Settings{{Kind: KindInBatch}, {Kind: KindUniform, Negatives: 8}, {Kind: KindMixed, Negatives: 8},
		{Kind: KindFull}, {Kind: KindPopularity, Negatives: 8}, {Kind: KindPopularity, Negatives: 8, Beta: &beta},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch}, {Kind: KindPopularity, Negatives: 6}}},
		{Kind: KindMixture, Of: []Settings{{Kind: KindUniform, Negatives: 4}, {Kind: KindPopularity, Negatives: 6, Beta: &beta}}},
		{Kind: KindMemory, MemoryBatches: 2}, {Kind: KindUniformPerRow, Negatives: 3},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch}, {Kind: KindUniformPerRow, Negatives: 3}}},
		{Kind: KindMixture, Of: []Settings{{Kind: KindPopularity, Negatives: 6}, {Kind: KindUniformPerRow, Negatives: 3}}},
		{Kind: KindMixture, Of: []Settings{{Kind: KindUniformPerRow, Negatives: 2}, {Kind: KindPopularity, Negatives: 4, Beta: &beta}}},
		{Kind: KindUniformWithoutReplacement, Negatives: 8}, {Kind: KindPopularityWithoutReplacement, Negatives: 8},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch}, {Kind: KindPopularityWithoutReplacement, Negatives: 6, Beta: &beta}}}}
}

// settingsName names a test case by its kind, negatives and components.
func settingsName(s Settings) string {
	name := fmt.Sprintf("%s-%d", s.Kind, s.Negatives)
	for _, o := range s.Of {
		name += "+" + settingsName(o)
	}
	return name
}

// TestAudit: every built-in sampler's empirical law over 4000 steps matches its declaration
// (see samplerstest for the tolerance).
func TestAudit(t *testing.T) {
	for _, s := range builtinSettings() {
		t.Run(settingsName(s), func(t *testing.T) {
			smp, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := samplerstest.Audit(smp, samplerstest.SkewedData(8), 4000, 1); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestAuditPositions: on the rows of sequences trained at every position (4 windows of 4
// positions, the first of each padding), every built-in sampler's empirical law over 4000 steps
// matches what it declares for those rows, "the batch" being the step's 12 positions with a
// positive (see samplerstest.AuditPositions); a declaration 10% off fails.
func TestAuditPositions(t *testing.T) {
	for _, s := range builtinSettings() {
		t.Run(settingsName(s), func(t *testing.T) {
			smp, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := samplerstest.AuditPositions(smp, samplerstest.SkewedData(12), 4, 4, 1, 4000, 1); err != nil {
				t.Error(err)
			}
			if s.Kind != KindFull {
				if err := samplerstest.AuditPositions(samplerstest.Overstated(smp, 1.1), samplerstest.SkewedData(12), 4, 4, 1, 4000, 1); err == nil {
					t.Error("a declaration 10% off passed the audit")
				}
			}
		})
	}
}

// TestAuditCatchesWrongDeclaration: a declaration 10% off fails the audit of every sampler whose
// law it misstates (full's p = 1 cannot be overstated).
func TestAuditCatchesWrongDeclaration(t *testing.T) {
	for _, s := range builtinSettings() {
		if s.Kind == KindFull {
			continue
		}
		t.Run(settingsName(s), func(t *testing.T) {
			smp, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := samplerstest.Audit(samplerstest.Overstated(smp, 1.1), samplerstest.SkewedData(8), 4000, 1); err == nil {
				t.Error("a declaration 10% too large passed the audit")
			}
		})
	}
}

// runAudit records steps steps of smp in an Audit, on i.i.d. batches as samplerstest.Audit draws them.
func runAudit(smp Sampler, d *Data, steps int) *Audit {
	rng := rand.New(rand.NewPCG(2, 3))
	sh := smp.Shape()
	b := d.Batch
	rows, pos := make([]int32, sh.ItemRows(b, d.Items)), make([]int32, b)
	c := newColumnsFor(smp, b, d.Items)
	a := NewAudit(d.Items)
	for range steps {
		for i := range pos {
			pos[i] = int32(rng.IntN(d.Items))
		}
		smp.Draw(rng, d, pos, rows)
		var law Law
		if sh.PositiveLaw {
			law = func(j int) (float64, float64, bool, error) { // uniform positives
				q := 1 / float64(d.Items)
				return q, prob.Inclusion(q, b), false, nil
			}
		}
		if err := smp.Declare(d, pos, rows, law, c); err != nil {
			panic(err)
		}
		a.Observe(sh, c)
	}
	return a
}

// TestAuditSummary: over 4000 steps of uniform positives, the mixed sampler's declared copies
// agree with the drawn ones (TV and the head's worst relative error below 0.05: each item's mean
// copies, (B−1)/M + m/M = 0.75 per row, is measured to about 1% in 4000 steps), and a declaration
// 10% too large shows as a head error near 0.1.
func TestAuditSummary(t *testing.T) {
	d := samplerstest.SkewedData(8)
	smp := must(New(Settings{Kind: KindMixed, Negatives: 8}))
	if s := runAudit(smp, d, 4000).Summary(d.Counts); !(s.TV < 0.05 && s.HeadWorst < 0.05) {
		t.Errorf("exact declaration: TV %v, head error %v; want both < 0.05", s.TV, s.HeadWorst)
	}
	if s := runAudit(samplerstest.Overstated(smp, 1.1), d, 4000).Summary(d.Counts); !(s.HeadWorst > 0.05) {
		t.Errorf("declaration 10%% too large: head error %v, want > 0.05", s.HeadWorst)
	}
}

// drawsAs draws like one sampler and declares like another of the same shape.
type drawsAs struct{ draw, declare Sampler }

func (s drawsAs) Shape() Shape { return s.declare.Shape() }
func (s drawsAs) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	s.draw.Draw(rng, d, pos, rows)
}
func (s drawsAs) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	return s.declare.Declare(d, pos, rows, law, c)
}

// zipfData is a corpus of items with Zipf training counts 2000/(j+1) and batches of 8.
func zipfData(items int) *Data {
	d := &Data{Items: items, Batch: 8, Counts: make([]int64, items)}
	for j := range d.Counts {
		d.Counts[j] = int64(2000 / (j + 1))
		d.N += int(d.Counts[j])
	}
	return d
}

// TestAuditFloor: the uniform sampler, whose m shared draws per step are i.i.d. from its
// declaration, shows a TV equal to the noise floor within 8% (over M = 2000 items the TV is a sum
// of 2000 independent-ish terms of relative spread about 0.75, so its own relative spread is about
// 0.75/√2000 ≈ 1.7%: 8% is more than 4 of them), and the count of draws is steps·m exactly;
// popularity draws (β = 1 over Zipf counts) declared as uniform show a TV many floors wide.
func TestAuditFloor(t *testing.T) {
	const items, m, steps = 2000, 64, 500
	d := zipfData(items)
	s := runAudit(must(New(Settings{Kind: KindUniform, Negatives: m})), d, steps).Summary(d.Counts)
	t.Logf("uniform: TV %.5f, floor %.5f over %d draws", s.TV, s.Floor, s.Draws)
	if s.Draws != steps*m {
		t.Errorf("uniform: %d draws, want %d", s.Draws, steps*m)
	}
	// The floor's normal approximation: each of the M items is Binomial(n, 1/M), mean absolute
	// deviation ≈ √(2·n·(1/M)(1 − 1/M)/π), so Floor ≈ ½·M·that/n.
	n := float64(steps * m)
	approx := 0.5 * items * math.Sqrt(2*n/items*(1-1.0/items)/math.Pi) / n
	if math.Abs(s.Floor/approx-1) > 0.02 {
		t.Errorf("uniform: floor %.5f, normal approximation %.5f", s.Floor, approx)
	}
	if math.Abs(s.TV/s.Floor-1) > 0.08 {
		t.Errorf("uniform: TV %.5f, floor %.5f: want equal within 8%%", s.TV, s.Floor)
	}
	mis := drawsAs{draw: must(New(Settings{Kind: KindPopularity, Negatives: m, Beta: new(1.0)})), declare: must(New(Settings{Kind: KindUniform, Negatives: m}))}
	s = runAudit(mis, d, steps).Summary(d.Counts)
	t.Logf("popularity declared as uniform: TV %.5f, floor %.5f", s.TV, s.Floor)
	if !(s.TV > 5*s.Floor) {
		t.Errorf("popularity declared as uniform: TV %.5f, floor %.5f: want TV > 5 floors", s.TV, s.Floor)
	}
}

// subsetDraws draws its sampler's items among the first k of the corpus only.
type subsetDraws struct {
	Sampler
	k int
}

func (s subsetDraws) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	s.Sampler.Draw(rng, d, pos, rows)
	for j := len(pos); j < len(rows); j++ {
		rows[j] = int32(rng.IntN(s.k))
	}
}

// TestAuditMass: the TV compares normalised distributions, so a declaration off by a constant
// factor, or one that declares q = 1/M while drawing from a tenth of the corpus, shows a TV within
// sampling noise; the declared mass shows both. An exact declaration has a mass of 1 (every item
// of the corpus is drawn in 500 steps of 64 draws from 2000 items but for about 2000·e^−16).
func TestAuditMass(t *testing.T) {
	const items, m, steps = 2000, 64, 500
	d := zipfData(items)
	uni := must(New(Settings{Kind: KindUniform, Negatives: m}))
	for _, tc := range []struct {
		name       string
		smp        Sampler
		mass       float64
		tvInFloors bool // the TV alone does not see it
	}{
		{"exact", uni, 1, true},
		{"q twice too large", samplerstest.Overstated(uni, 2), 2, true},
		{"q = 1/M drawn from a tenth", subsetDraws{uni, items / 10}, 0.1, true},
	} {
		s := runAudit(tc.smp, d, steps).Summary(d.Counts)
		t.Logf("%s: TV %.4f, floor %.4f, mass %.4f", tc.name, s.TV, s.Floor, s.Mass)
		if math.Abs(s.Mass/tc.mass-1) > 1e-6 {
			t.Errorf("%s: mass %v, want %v", tc.name, s.Mass, tc.mass)
		}
		if tc.tvInFloors != (s.TV < 1.5*s.Floor) {
			t.Errorf("%s: TV %v against floor %v", tc.name, s.TV, s.Floor)
		}
	}
}
