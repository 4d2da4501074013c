package losses

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/tape"
)

// harness is a graph scores → loss (→ ∂loss/∂scores) on a tape machine.
type harness struct {
	dt     tensor.Dtype
	b, c   int
	scores *gorgonia.Node
	loss   *gorgonia.Node
	grad   *gorgonia.Node
	op     *lossOp // the fused op, nil for the expression
	vm     gorgonia.VM
}

func newHarness(t testing.TB, l *Loss, st *candidates.Step, b, c int, withGrad bool) *harness {
	t.Helper()
	g := gorgonia.NewGraph()
	h := &harness{dt: l.dt, b: b, c: c}
	h.scores = gorgonia.NewMatrix(g, l.dt, gorgonia.WithShape(b, c), gorgonia.WithName("scores"))
	var err error
	if h.loss, err = l.Node(Inputs{Scores: h.scores}, st); err != nil {
		t.Fatal(err)
	}
	h.op, _ = h.loss.Op().(*lossOp) // nil for the expression
	if withGrad {
		gs, err := gorgonia.Grad(h.loss, h.scores)
		if err != nil {
			t.Fatal(err)
		}
		h.grad = gs[0]
	}
	outs := []*gorgonia.Node{h.loss}
	if h.grad != nil {
		outs = append(outs, h.grad)
	}
	if h.vm, err = tape.Machine(g, outs...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.vm.Close() })
	return h
}

// dense returns S (row-major b×c) as a tensor of dtype dt.
func dense(dt tensor.Dtype, S []float64, b, c int) *tensor.Dense {
	if dt == tensor.Float32 {
		return tensor.New(tensor.WithShape(b, c), tensor.WithBacking(to32(S)))
	}
	return tensor.New(tensor.WithShape(b, c), tensor.WithBacking(append([]float64(nil), S...)))
}

func to32(x []float64) []float32 {
	y := make([]float32, len(x))
	for k, v := range x {
		y[k] = float32(v)
	}
	return y
}

// round32 rounds every entry to float32 precision, the input the float32 op sees.
func round32(x []float64) []float64 {
	y := make([]float64, len(x))
	for k, v := range x {
		y[k] = float64(float32(v))
	}
	return y
}

func values(v gorgonia.Value) []float64 {
	switch d := v.Data().(type) {
	case []float32:
		y := make([]float64, len(d))
		for k, x := range d {
			y[k] = float64(x)
		}
		return y
	case []float64:
		return append([]float64(nil), d...)
	case float32:
		return []float64{float64(d)}
	case float64:
		return []float64{d}
	}
	panic(fmt.Sprintf("values: %T", v.Data()))
}

// mustRun is newHarness(t, l, st, b, c, withGrad).run(S), failing the test at an error: the
// loss and, with withGrad, its gradient.
func mustRun(t testing.TB, l *Loss, st *candidates.Step, b, c int, withGrad bool, S []float64) (float64, []float64) {
	t.Helper()
	v, g, err := newHarness(t, l, st, b, c, withGrad).run(S)
	if err != nil {
		t.Fatal(err)
	}
	return v, g
}

// run evaluates the loss (and gradient, if the harness has one) at S.
func (h *harness) run(S []float64) (float64, []float64, error) {
	if err := gorgonia.Let(h.scores, dense(h.dt, S, h.b, h.c)); err != nil {
		return 0, nil, err
	}
	defer h.vm.Reset()
	if err := h.vm.RunAll(); err != nil {
		return 0, nil, err
	}
	v := values(h.loss.Value())[0]
	if h.grad == nil {
		return v, nil, nil
	}
	return v, values(h.grad.Value()), nil
}

// caseGen draws random test problems: a corpus of L items with Zipf-skewed
// data distribution (so batches hold duplicates and accidental hits) and a
// differently skewed label prior.
type caseGen struct {
	rng   *rand.Rand
	L     int
	qData []float64 // per-draw data distribution (positives, in-batch negatives)
	prior []float64 // π
}

func newCaseGen(seed uint64, L int) *caseGen {
	g := &caseGen{rng: rand.New(rand.NewPCG(seed, 7)), L: L}
	g.qData = zipf(L, 1.3)
	g.prior = zipf(L, 0.7)
	return g
}

func zipf(L int, a float64) []float64 {
	p := make([]float64, L)
	sum := 0.0
	for k := range p {
		p[k] = 1 / math.Pow(float64(k+1), a)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

func draw(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for k, v := range p {
		u -= v
		if u < 0 {
			return k
		}
	}
	return len(p) - 1
}

// problem is one test input: resolved settings, step and scores.
type problem struct {
	s    Settings
	st   *candidates.Step
	b, c int
	S    []float64
}

// gen builds a problem for resolved settings s and geometry geo with b rows. Under a padded
// geometry each row but the first is padding with probability 1/3. With extreme set, scores are ±1000 and some
// sampling probabilities 1e-12.
func (g *caseGen) gen(s Settings, geo candidates.Geometry, b int, extreme bool) problem {
	rng := g.rng
	st := &candidates.Step{Geometry: geo, Items: g.L}
	st.RowItem = make([]int64, b)
	for i := range st.RowItem {
		st.RowItem[i] = int64(draw(rng, g.qData))
		if geo.Padded && i > 0 && rng.IntN(3) == 0 {
			st.RowItem[i] = candidates.NoItem
		}
	}
	uniform := make([]float64, g.L)
	for k := range uniform {
		uniform[k] = 1 / float64(g.L)
	}
	drawn := func(n int) []int64 {
		out := make([]int64, n)
		for k := range out {
			out[k] = int64(draw(rng, uniform))
		}
		return out
	}
	var q func(item int64) float64 // the sampler's per-draw probability
	c := geo.Cols(b, g.L)
	switch geo.Layout {
	case candidates.Diagonal, candidates.First:
		shared := drawn(geo.Extra + geo.Memory*b) // the drawn and constant columns every row scores
		if geo.Unfilled {                         // about a third of the drawn columns empty
			for k := range geo.Extra {
				if rng.IntN(3) == 0 {
					shared[k] = candidates.NoItem
				}
			}
		}
		rows := 1 // the rows of the column slices: R when each row has its own columns
		if geo.PerRow > 0 {
			rows = b
		}
		for range rows {
			if geo.Layout == candidates.Diagonal {
				st.ColItem = append(st.ColItem, st.RowItem...)
			} else {
				st.ColItem = append(st.ColItem, candidates.NoItem)
			}
			st.ColItem = append(st.ColItem, shared...)
			st.ColItem = append(st.ColItem, drawn(geo.PerRow)...)
		}
		q = func(int64) float64 { return 1 / float64(g.L) }
		if geo.Layout == candidates.Diagonal {
			q = func(it int64) float64 { return MixedDrawProb(g.qData[it], b-1, c-b, g.L) }
		}
	case candidates.Corpus:
		st.ColItem = make([]int64, c)
		for j := range st.ColItem {
			st.ColItem[j] = int64(j)
		}
		st.PosCol = make([]int, b)
		for i, it := range st.RowItem {
			st.PosCol[i] = int(it)
		}
		q = func(it int64) float64 { return g.qData[it] }
	}
	m := c - 1
	logs := func(items []int64, f func(int64) float64) []float64 {
		out := make([]float64, len(items))
		for k, it := range items {
			if it < 0 {
				it = st.RowItem[0]
			}
			out[k] = math.Log(f(it))
		}
		return out
	}
	incl := func(it int64) float64 { return InclusionProb(q(it), max(m, 1)) }
	prior := func(it int64) float64 { return g.prior[it] }
	st.Set(candidates.Side{Name: candidates.LogQ, By: "sampler " + geo.Sampler}, logs(st.ColItem, q), logs(st.RowItem, q))
	st.Set(candidates.Side{Name: candidates.LogP, By: "sampler " + geo.Sampler}, logs(st.ColItem, incl), logs(st.RowItem, incl))
	st.Set(candidates.Side{Name: candidates.LogPrior, By: "data"}, logs(st.ColItem, prior), logs(st.RowItem, prior))
	st.Set(candidates.Side{Name: candidates.Positives, Kind: candidates.PerEntry, By: "data"}, nil, nil)
	var known []int // about a third of the entries: the rows' other known positives (login, logout)
	for k := range b * c {
		if rng.IntN(3) == 0 {
			known = append(known, k)
		}
	}
	if err := st.SetEntries(candidates.Positives, known, ones(len(known))); err != nil {
		panic(err)
	}
	if rng.IntN(4) != 0 {
		rewards := make([]float64, b)
		for i := range rewards {
			rewards[i] = 2 * rng.Float64()
		}
		st.Set(candidates.Side{Name: candidates.Rewards, Kind: candidates.PerRow, By: "data"}, nil, rewards)
	}
	S := make([]float64, b*c)
	for k := range S {
		S[k] = rng.NormFloat64()
		if extreme {
			S[k] = 1000 * math.Copysign(1, S[k])
		}
	}
	if extreme {
		tiny := math.Log(1e-12)
		colQ, colP := st.Col(candidates.LogQ), st.Col(candidates.LogP)
		for j := 0; j < len(colQ); j += 2 {
			colQ[j], colP[j] = tiny, tiny
		}
		st.Row(candidates.LogQ)[0], st.Row(candidates.LogP)[0] = tiny, tiny
	}
	return problem{s: s, st: st, b: b, c: c, S: S}
}

// The geometries the tests build losses for: those of the built-in samplers (5 drawn items, or 5
// of each row's own, drawn uniformly as gen draws them), a sampler that scores two rows per
// example with padding, and the corpus.
var (
	inBatchG       = candidates.Geometry{Sampler: "in_batch", Layout: candidates.Diagonal}
	uniformG       = candidates.Geometry{Sampler: "uniform", Layout: candidates.First, Extra: 5, Uniform: true}
	mixedG         = candidates.Geometry{Sampler: "mixed", Layout: candidates.Diagonal, Extra: 5, Uniform: true}
	uniformPerRowG = candidates.Geometry{Sampler: "uniform_per_row", Layout: candidates.First, PerRow: 5, Uniform: true}
	mixedPerRowG   = candidates.Geometry{Sampler: "mixed_per_row", Layout: candidates.Diagonal, PerRow: 5, Uniform: true}
	memoryG        = candidates.Geometry{Sampler: "memory", Layout: candidates.Diagonal, Memory: 1}
	paddedG        = candidates.Geometry{Sampler: "positions", Layout: candidates.Diagonal, PerExample: 2, Padded: true}
	paddedFirstG   = candidates.Geometry{Sampler: "positions_uniform", Layout: candidates.First, Extra: 5, PerExample: 2, Padded: true, Uniform: true}
	corpusG        = candidates.Geometry{Sampler: "full", Layout: candidates.Corpus}
	geometries     = []candidates.Geometry{inBatchG, uniformG, mixedG, uniformPerRowG, mixedPerRowG, memoryG, paddedG, paddedFirstG, corpusG}
	// in_batch_unique's and its mixture's with uniform_per_row: some drawn columns are empty
	// (Unfilled); TestUnfilled runs every check on them.
	unfilledG          = candidates.Geometry{Sampler: "in_batch_unique", Layout: candidates.First, Extra: 5, Unfilled: true}
	unfilledRowG       = candidates.Geometry{Sampler: "in_batch_unique+uniform_per_row", Layout: candidates.First, Extra: 5, PerRow: 3, Unfilled: true}
	unfilledGeometries = []candidates.Geometry{unfilledG, unfilledRowG}
)

// geometryOf is the geometry a test of settings s scores by default: the corpus for the variants
// that score it, in-batch otherwise.
func geometryOf(s Settings) candidates.Geometry {
	if s.Variant.ScoresCorpus() {
		return corpusG
	}
	return inBatchG
}

// tcase is a loss's settings and the geometry of its candidates.
type tcase struct {
	Settings
	g candidates.Geometry
}

// newCase is the loss of tc (mustNew).
func (tc tcase) newLoss(t testing.TB, dt tensor.Dtype) *Loss {
	t.Helper()
	l, err := New(tc.Settings, tc.g, dt)
	if err != nil {
		t.Fatalf("%s: %v", name(tc), err)
	}
	return l
}

// allSettings is the cross product of every variant (built in or
// registered), form, geometry and option, keeping the combinations ResolveFor
// accepts; the numeric options are set to non-default values so that their
// effect is visible.
func allSettings(t testing.TB) []tcase {
	t.Helper()
	out := settingsOver(t, geometries)
	perVariant := map[Variant]int{}
	perForm := map[LogQProbability]int{}
	for _, tc := range out {
		perVariant[tc.Variant]++
		perForm[tc.LogQProbability]++
	}
	// A guard against ResolveFor rejecting valid combinations: every variant has
	// some, each geometry or the corpus, and the Rawat weightings both forms.
	for _, v := range Variants() {
		want := 1
		switch {
		case isRawat(v):
			want = 2 * 8 * 2 // forms × geometries × reductions at least
		case v == VariantGBCE:
			want = 3 * 2 // the geometries of uniform draws after the positive × reductions at least
		case !v.ScoresCorpus():
			want = 8 * 2 // geometries × reductions at least
		}
		if perVariant[v] < want {
			t.Fatalf("variant %s: only %d valid settings combinations, want at least %d", v, perVariant[v], want)
		}
	}
	// logq, nce and sampled_logistic in each logq_probability (dedupe always
	// removing accidental hits): 8 geometries × 2 reductions at least each.
	for _, prob := range []LogQProbability{LogQProbabilityExpectedCount, LogQProbabilityInclusion, LogQProbabilityDedupe} {
		if perForm[prob] < 3*8*2 {
			t.Fatalf("logq_probability %s: only %d valid settings combinations", prob, perForm[prob])
		}
	}
	return out
}

// settingsOver is allSettings over the geometries geos.
func settingsOver(t testing.TB, geos []candidates.Geometry) []tcase {
	t.Helper()
	var out []tcase
	seen := map[string]bool{}
	for _, v := range Variants() {
		for _, form := range []Form{"", FormDecoupled} {
			for _, geo := range geos {
				for _, at := range []CorrectAt{"", CorrectAtScores} {
					for _, unc := range []bool{false, true} {
						for _, hits := range []bool{false, true} {
							for _, red := range []Reduction{"", ReductionSum} {
								for _, prob := range []LogQProbability{"", LogQProbabilityInclusion, LogQProbabilityDedupe} {
									s := Settings{Variant: v, Form: form, CorrectAt: at,
										UncorrectedPositive: unc, RemoveAccidentalHits: hits, Reduction: red,
										LogQProbability: prob}
									if v != VariantMSEGramian {
										s.Temperature = 0.7
									}
									if v == VariantLogitAdjusted {
										s.LATau = 1.5
									}
									if v == VariantMSEGramian {
										s.GramianWeight = 0.3
									}
									s.Options = optionedTestOptions(v)
									tc := tcase{s, geo}
									if tc.ResolveFor(geo) == nil && !seen[name(tc)] {
										seen[name(tc)] = true
										out = append(out, tc)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// impls are the implementations of the resolved settings s: the
// expression, and the fused kernel where there is one.
func impls(s tcase) []Impl {
	if s.hasFused() {
		return []Impl{ImplExpression, ImplFused}
	}
	return []Impl{ImplExpression}
}

// withImpl returns tc with implementation im.
func withImpl(tc tcase, im Impl) tcase {
	tc.Impl = im
	return tc
}

func name(tc tcase) string {
	s := tc.Settings
	return fmt.Sprintf("%s/%s/%s/at=%s/unc=%v/hits=%v/%s/prob=%s/%s", s.Variant, s.Form, tc.g.Sampler, s.CorrectAt,
		s.UncorrectedPositive, s.RemoveAccidentalHits, s.Reduction, s.LogQProbability, s.Impl)
}

// maxAbs is ‖x‖∞.
func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// checkClose fails unless |got−want| ≤ tol·|want| for the loss and
// |∂got−∂want| ≤ tol·‖∂want‖∞ entrywise for the gradient.
func checkClose(t *testing.T, what string, got, want float64, gGot, gWant []float64, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.IsInf(got, 0) || math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s: loss %.17g, want %.17g (rel err %.3g, tol %g)", what, got, want, math.Abs(got-want)/math.Abs(want), tol)
	}
	if gGot == nil {
		return
	}
	scale := maxAbs(gWant)
	for k := range gWant {
		if math.IsNaN(gGot[k]) || math.IsInf(gGot[k], 0) || math.Abs(gGot[k]-gWant[k]) > tol*scale {
			t.Errorf("%s: grad[%d] = %.17g, want %.17g (‖∂‖∞ %.3g, tol %g)", what, k, gGot[k], gWant[k], scale, tol)
			return
		}
	}
}

// sides are a step's side inputs written out, for the tests that build a step by hand: the
// columns' and the positives' log q, log p̂ and log π, and the rewards; a nil one is left out.
type sides struct {
	LogQ, PosLogQ, LogP, PosLogP, LogPrior, PosLogPrior, Rewards []float64
}

// stepOf is a step of geometry g with the items of its rows and columns and the side inputs sd.
func stepOf(g candidates.Geometry, rowItem, colItem []int64, sd sides) *candidates.Step {
	st := &candidates.Step{Geometry: g, RowItem: rowItem, ColItem: colItem}
	for _, v := range []struct {
		name     string
		col, row []float64
	}{{candidates.LogQ, sd.LogQ, sd.PosLogQ}, {candidates.LogP, sd.LogP, sd.PosLogP}, {candidates.LogPrior, sd.LogPrior, sd.PosLogPrior}} {
		if v.col != nil || v.row != nil {
			st.Set(candidates.Side{Name: v.name, By: "test"}, v.col, v.row)
		}
	}
	if sd.Rewards != nil {
		st.Set(candidates.Side{Name: candidates.Rewards, Kind: candidates.PerRow, By: "test"}, nil, sd.Rewards)
	}
	return st
}

// The side inputs of a step by hand's test: each column's and each row's positive's log q, log
// p̂ and log π, and the rewards.
func qCol(st *candidates.Step) []float64     { return st.Col(candidates.LogQ) }
func qPos(st *candidates.Step) []float64     { return st.Row(candidates.LogQ) }
func pCol(st *candidates.Step) []float64     { return st.Col(candidates.LogP) }
func pPos(st *candidates.Step) []float64     { return st.Row(candidates.LogP) }
func priorCol(st *candidates.Step) []float64 { return st.Col(candidates.LogPrior) }
func priorPos(st *candidates.Step) []float64 { return st.Row(candidates.LogPrior) }
func rewardsOf(st *candidates.Step) []float64 {
	return st.Row(candidates.Rewards)
}

// ones is n ones: the rewards of a step whose rows all weigh 1.
func ones(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	return x
}

// centralDifferences are the central differences of f at x with step h, (f(x + h·e_k) −
// f(x − h·e_k))/(2h) for every k (gonum's diff/fd, as lossestest's checks take them).
func centralDifferences(f func([]float64) float64, x []float64, h float64) []float64 {
	return fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: h})
}
