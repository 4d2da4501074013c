package samplers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
)

// auditData is a small skewed corpus: M = 20 items with Zipf-like counts 60/(j+1), so that the
// head is drawn several times per batch (B·q > 1) and the tail rarely.
func auditData(b int) *Data {
	d := &Data{Items: 20, Batch: b, Counts: make([]int64, 20)}
	for j := range d.Counts {
		d.Counts[j] = int64(60 / (j + 1))
		d.N += int(d.Counts[j])
	}
	return d
}

// exactLaw is the positives' law of batches drawn i.i.d. from the training frequency, as
// auditSteps draws them: q = count/N and p = 1 − (1 − q)^B.
func exactLaw(d *Data, rows []int32) Law {
	return func(j int) (float64, float64, bool, error) {
		if rows[j] == candidates.NoItem { // a padding row's: any law will do, it has no loss
			return 0.5, 0.5, false, nil
		}
		q := float64(d.Counts[rows[j]]) / float64(d.N)
		return q, prob.Inclusion(q, d.Batch), false, nil
	}
}

// audit runs steps steps of smp on batches of d.Batch positives drawn i.i.d. with probability
// count/N, and compares, for every item the steps declared, the empirical frequency of the step
// including the item with the declared p (of a row including it, for a shape that draws per row),
// and the mean number of copies of the item among a row's negatives with the declared (C−1)·q. It
// returns an error naming the first item outside the tolerance.
//
// The tolerance is 5 standard errors of the empirical mean over the N = steps independent steps
// (√(p(1−p)/N) for the inclusion frequency of shared columns; for the fraction of a step's rows
// including the item under PerRow, and for the per-step copy count, the sample standard deviation
// over √N) plus 1e-9: a correct declaration then fails one check with probability below 6·10⁻⁷
// (normal approximation), while an error of 10% in q or p at the tested N is many standard errors
// wide for the items checked (inclusion p ≥ 0.05).
func audit(smp Sampler, d *Data, steps int, seed uint64) error {
	return auditPositions(smp, d, d.Batch, 1, 0, steps, seed)
}

// auditPositions is audit on the rows of sequences trained at every position: each step has b
// windows of length positions (candidates.Geometry.PerExample = length, Padded), the first pad
// positions of each window padding (a NoItem positive) and the others rows whose positives are
// drawn i.i.d. with probability count/N, d.Batch of them (b·(length − pad)); "the batch" is those
// positives. A padding row is no row: it draws nothing, and its column (layout diagonal) is no
// row's negative, so a row's negatives and the declared copies m·q count the columns that hold
// an item.
func auditPositions(smp Sampler, d *Data, b, length, pad, steps int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 1))
	sh := smp.Shape()
	if length > 1 || pad > 0 {
		sh.PerExample, sh.Padded = length, true
	}
	r := b * length
	if d.Batch != b*(length-pad) {
		return fmt.Errorf("d.Batch = %d, want the %d rows with a positive", d.Batch, b*(length-pad))
	}
	valid := float64(d.Batch)
	rows := make([]int32, sh.ItemRows(r, d.Items))
	pos := make([]int32, r)
	cols, units := sh.Cols(r, d.Items), 1 // units: the declarations' rows, R under PerRow
	if sh.PerRow > 0 {
		units = r
	}
	c := newColumnsFor(sh, b, d.Items) // b examples of length rows each
	cdf := make([]float64, d.Items)
	var sum float64
	for j, n := range d.Counts {
		sum += float64(n)
		cdf[j] = sum
	}
	type tally struct {
		declP, declCount float64 // declared, summed over the steps (rows) that declared the item
		declared         int
		incl, incl2      float64 // per-step fraction of the units including the item, and its square
		count, count2    float64 // per-step mean copies among a row's negatives, and its square
	}
	items := make([]tally, d.Items)
	perStep, inclStep := make([]float64, d.Items), make([]float64, d.Items)
	law := exactLaw(d, rows)
	for range steps {
		for i := range pos {
			pos[i] = candidates.NoItem
			if i%length >= pad {
				u := rng.Float64() * sum
				pos[i] = int32(sort.Search(len(cdf), func(k int) bool { return cdf[k] > u }))
			}
		}
		smp.Draw(rng, d, pos, rows)
		if err := smp.Declare(d, pos, rows, law, c); err != nil {
			return err
		}
		clear(perStep)
		clear(inclStep)
		// A row's negatives: the columns with an item but its positive's (under layout diagonal,
		// not a padding row's column, nor a memory column holding one).
		m := float64(cols - 1)
		if sh.Layout == candidates.Diagonal {
			m = -1
			for j := range cols - sh.PerRow {
				if c.ColItem[j] >= 0 {
					m++
				}
			}
			m += float64(sh.PerRow)
		}
		for u := range units {
			if units > 1 && pos[u] == candidates.NoItem {
				continue
			}
			seen := map[int64]bool{}
			for j := range cols {
				k, item := u*cols+j, c.ColItem[u*cols+j]
				if item < 0 {
					continue
				}
				if !seen[item] {
					seen[item] = true
					t := &items[item]
					t.declared++
					inclStep[item] += 1 / math.Min(float64(units), valid)
					t.declP += math.Exp(colP(c)[k])
					t.declCount += m * math.Exp(colQ(c)[k])
				}
				if units > 1 {
					if !isPositiveColumn(sh.Layout, u, j, c.PosCol) {
						perStep[item] += 1 / valid
					}
					continue
				}
				for i := range r {
					if pos[i] != candidates.NoItem && !isPositiveColumn(sh.Layout, i, j, c.PosCol) {
						perStep[item] += 1 / valid
					}
				}
			}
		}
		for j := range items {
			t := &items[j]
			t.incl += inclStep[j]
			t.incl2 += inclStep[j] * inclStep[j]
			t.count += perStep[j]
			t.count2 += perStep[j] * perStep[j]
		}
	}
	n := float64(steps)
	sd := func(sum, sum2 float64) float64 { return math.Sqrt(math.Max(sum2/n-(sum/n)*(sum/n), 0)) }
	for j, t := range items {
		if t.declared == 0 {
			continue
		}
		p, count := t.declP/float64(t.declared), t.declCount/float64(t.declared)
		if p < 0.05 {
			continue
		}
		freq, sdIncl := t.incl/n, math.Sqrt(p*(1-p))
		if units > 1 {
			sdIncl = sd(t.incl, t.incl2)
		}
		if tol := 5*sdIncl/math.Sqrt(n) + 1e-9; math.Abs(freq-p) > tol {
			return fmt.Errorf("item %d: included in %.4f of the steps, declared p = %.4f (tolerance %.4f)", j, freq, p, tol)
		}
		if sh.Layout == candidates.Corpus {
			continue // the corpus's columns are not draws: q = 1/M is the uniform proposal's convention
		}
		mean := t.count / n
		if tol := 5*sd(t.count, t.count2)/math.Sqrt(n) + 1e-9; math.Abs(mean-count) > tol {
			return fmt.Errorf("item %d: %.4f copies per row, declared %.4f (tolerance %.4f)", j, mean, count, tol)
		}
	}
	return nil
}

// newColumnsFor returns the step a sampler of shape sh declares at batch size b over m items,
// with the side inputs it fills.
func newColumnsFor(sh Shape, b, m int) *candidates.Step {
	c := candidates.NewStep(sh.Geometry, b, m)
	for _, name := range []string{candidates.LogQ, candidates.LogP} {
		if err := c.Declare(candidates.Side{Name: name, By: "sampler"}); err != nil {
			panic(err)
		}
	}
	return c
}

// colQ, colP, posQ and posP are a step's log q and log p of its columns and of its rows'
// positives.
func colQ(c *candidates.Step) []float64 { return c.Col(candidates.LogQ) }
func colP(c *candidates.Step) []float64 { return c.Col(candidates.LogP) }
func posQ(c *candidates.Step) []float64 { return c.Row(candidates.LogQ) }
func posP(c *candidates.Step) []float64 { return c.Row(candidates.LogP) }

// isPositiveColumn reports whether column j is row i's positive.
func isPositiveColumn(l candidates.Layout, i, j int, posCol []int) bool {
	switch l {
	case candidates.First:
		return j == 0
	case candidates.Corpus:
		return j == posCol[i]
	}
	return j == i
}

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
// (see audit for the tolerance).
func TestAudit(t *testing.T) {
	for _, s := range builtinSettings() {
		t.Run(settingsName(s), func(t *testing.T) {
			smp, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := audit(smp, auditData(8), 4000, 1); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestAuditPositions: on the rows of sequences trained at every position (4 windows of 4
// positions, the first of each padding), every built-in sampler's empirical law over 4000 steps
// matches what it declares for those rows, "the batch" being the step's 12 positions with a
// positive (see auditPositions); a declaration 10% off fails.
func TestAuditPositions(t *testing.T) {
	for _, s := range builtinSettings() {
		t.Run(settingsName(s), func(t *testing.T) {
			smp, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := auditPositions(smp, auditData(12), 4, 4, 1, 4000, 1); err != nil {
				t.Error(err)
			}
			if s.Kind != KindFull {
				if err := auditPositions(wrong{smp}, auditData(12), 4, 4, 1, 4000, 1); err == nil {
					t.Error("a declaration 10% off passed the audit")
				}
			}
		})
	}
}

// wrong declares q and p 10% too large.
type wrong struct{ Sampler }

func (w wrong) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	if err := w.Sampler.Declare(d, pos, rows, law, c); err != nil {
		return err
	}
	for j := range colQ(c) {
		colQ(c)[j] += math.Log(1.1)
		colP(c)[j] = math.Min(colP(c)[j]+math.Log(1.1), 0)
	}
	return nil
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
			if err := audit(wrong{smp}, auditData(8), 4000, 1); err == nil {
				t.Error("a declaration 10% too large passed the audit")
			}
		})
	}
}

// runAudit records steps steps of smp in an Audit, on i.i.d. batches as audit draws them.
func runAudit(smp Sampler, d *Data, steps int) *Audit {
	rng := rand.New(rand.NewPCG(2, 3))
	sh := smp.Shape()
	b := d.Batch
	rows, pos := make([]int32, sh.ItemRows(b, d.Items)), make([]int32, b)
	c := newColumnsFor(sh, b, d.Items)
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
	d := auditData(8)
	smp := mixed{m: 8}
	if s := runAudit(smp, d, 4000).Summary(d.Counts); !(s.TV < 0.05 && s.HeadWorst < 0.05) {
		t.Errorf("exact declaration: TV %v, head error %v; want both < 0.05", s.TV, s.HeadWorst)
	}
	if s := runAudit(wrong{smp}, d, 4000).Summary(d.Counts); !(s.HeadWorst > 0.05) {
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
	s := runAudit(uniform{m: m}, d, steps).Summary(d.Counts)
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
	mis := drawsAs{draw: &popularity{m: m, beta: 1}, declare: uniform{m: m}}
	s = runAudit(mis, d, steps).Summary(d.Counts)
	t.Logf("popularity declared as uniform: TV %.5f, floor %.5f", s.TV, s.Floor)
	if !(s.TV > 5*s.Floor) {
		t.Errorf("popularity declared as uniform: TV %.5f, floor %.5f: want TV > 5 floors", s.TV, s.Floor)
	}
}

// scaledQ declares every q of its sampler times a constant factor.
type scaledQ struct {
	Sampler
	factor float64
}

func (s scaledQ) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	if err := s.Sampler.Declare(d, pos, rows, law, c); err != nil {
		return err
	}
	for j := range colQ(c) {
		colQ(c)[j] += math.Log(s.factor)
	}
	return nil
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
	for _, tc := range []struct {
		name       string
		smp        Sampler
		mass       float64
		tvInFloors bool // the TV alone does not see it
	}{
		{"exact", uniform{m: m}, 1, true},
		{"q twice too large", scaledQ{uniform{m: m}, 2}, 2, true},
		{"q = 1/M drawn from a tenth", subsetDraws{uniform{m: m}, items / 10}, 0.1, true},
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
