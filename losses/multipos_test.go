package losses

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// withoutKnown returns p with no known positives (the side input positives declared, empty).
func withoutKnown(p problem) problem {
	if err := p.st.SetEntries(candidates.Positives, nil, nil); err != nil {
		panic(err)
	}
	return p
}

// TestMultiPositiveOnePositive: where a row has no other known positive (the side input positives
// empty), login and logout equal plain's value and gradient (full's over the corpus), and with
// logq_probability logq's
// (same correction, uncorrected_positive and correct_at), on every geometry, in float64 and
// float32; with other positives they differ from it.
func TestMultiPositiveOnePositive(t *testing.T) {
	gen := newCaseGen(11, 9)
	for _, geo := range geometries {
		for _, v := range []Variant{VariantLogIn, VariantLogOut} {
			for _, prob := range []LogQProbability{"", LogQProbabilityExpectedCount, LogQProbabilityDedupe} {
				for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
					multi := Settings{Variant: v, Temperature: 0.3, LogQProbability: prob}
					single := Settings{Variant: VariantPlain, Temperature: 0.3}
					if geo.Layout == candidates.Corpus {
						if prob != "" {
							continue // logq does not score the corpus
						}
						single.Variant = VariantFull
					}
					if prob != "" {
						single.Variant, single.LogQProbability = VariantLogQ, prob
						multi.UncorrectedPositive, single.UncorrectedPositive = true, true
					}
					lm, err := New(multi, geo, dt)
					if err != nil {
						t.Fatalf("%s %s: %v", v, geo.Sampler, err)
					}
					ls, err := New(single, geo, dt)
					if err != nil {
						t.Fatalf("%s %s: %v", single.Variant, geo.Sampler, err)
					}
					p := withoutKnown(gen.gen(lm.Settings(), geo, 6, false))
					got, gGot := mustRun(t, lm, p.st, p.b, p.c, true, p.S)
					want, gWant := mustRun(t, ls, p.st, p.b, p.c, true, p.S)
					tol := 1e-12
					if dt == tensor.Float32 {
						tol = 1e-5
					}
					what := string(v) + "/" + geo.Sampler + "/prob=" + string(prob) + "/" + dt.String()
					checkClose(t, what, got, want, gGot, gWant, tol)
					if dt == tensor.Float64 {
						q := gen.gen(lm.Settings(), geo, 6, false) // about a third of the entries known positives
						if a, _ := mustRun(t, lm, q.st, q.b, q.c, false, q.S); math.Abs(a-mustValue(t, ls, q)) < 1e-9 {
							t.Errorf("%s: with other known positives the loss %v equals the single-positive one", what, a)
						}
					}
				}
			}
		}
	}
}

// TestFullSamplerCorrection: the full sampler declares every column's and positive's q = 1/M and
// p = 1 (docs/samplers.md §4), so that a correction of every column, the positive's included, is
// one constant: login and logout with any logq_probability and a single positive per row are the
// full softmax, value and gradient. With uncorrected_positive only expected_count, whose
// Q = (M − 1)·q = (M − 1)/M is not 1, moves the negatives: each is weighted M/(M − 1), the full
// softmax of the scores s_ij + τ·log(M/(M − 1)) off the positive's column.
func TestFullSamplerCorrection(t *testing.T) {
	const tau = 0.3
	gen := newCaseGen(13, 9)
	for _, v := range []Variant{VariantLogIn, VariantLogOut} {
		for _, prob := range []LogQProbability{LogQProbabilityExpectedCount, LogQProbabilityInclusion, LogQProbabilityDedupe} {
			for _, unc := range []bool{false, true} {
				what := fmt.Sprintf("%s/%s/uncorrected_positive=%v", v, prob, unc)
				lm, err := New(Settings{Variant: v, Temperature: tau, LogQProbability: prob, UncorrectedPositive: unc}, corpusG, tensor.Float64)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				full, err := New(Settings{Variant: VariantFull, Temperature: tau}, corpusG, tensor.Float64)
				if err != nil {
					t.Fatal(err)
				}
				p := withoutKnown(gen.gen(lm.Settings(), corpusG, 6, false))
				for _, logs := range [][]float64{qCol(p.st), qPos(p.st)} {
					for k := range logs {
						logs[k] = -math.Log(float64(p.c))
					}
				}
				for _, logs := range [][]float64{pCol(p.st), pPos(p.st)} {
					clear(logs)
				}
				shifted := slices.Clone(p.S)
				if unc && prob == LogQProbabilityExpectedCount {
					for k := range shifted {
						if k%p.c != p.st.PosCol[k/p.c] {
							shifted[k] += tau * math.Log(float64(p.c)/float64(p.c-1))
						}
					}
				}
				got, gGot := mustRun(t, lm, p.st, p.b, p.c, true, p.S)
				want, gWant := mustRun(t, full, p.st, p.b, p.c, true, shifted)
				checkClose(t, what, got, want, gGot, gWant, 1e-12)
			}
		}
	}
}

// mustValue is l's value on problem p.
func mustValue(t *testing.T, l *Loss, p problem) float64 {
	v, _ := mustRun(t, l, p.st, p.b, p.c, false, p.S)
	return v
}

// TestMultiPositiveByHand: one row of in-batch scores with the columns' logits written out, its
// positive (column 0), another known positive (column 2) and two negatives (columns 1 and 3):
// login is −log((e^{z0} + e^{z2})/(e^{z0} + e^{z1} + e^{z2} + e^{z3})) and logout the mean of
// −log(e^{z0}/(e^{z0} + e^{z1} + e^{z3})) and −log(e^{z2}/(e^{z2} + e^{z1} + e^{z3})), computed
// here by hand.
func TestMultiPositiveByHand(t *testing.T) {
	z := []float64{0.5, 1.0, -0.25, 0.75} // τ = 1: the logits are the scores
	e := func(k int) float64 { return math.Exp(z[k]) }
	wantIn := -math.Log((e(0) + e(2)) / (e(0) + e(1) + e(2) + e(3)))
	wantOut := (-math.Log(e(0)/(e(0)+e(1)+e(3))) - math.Log(e(2)/(e(2)+e(1)+e(3)))) / 2
	g := candidates.Geometry{Sampler: "in_batch", Layout: candidates.Diagonal}
	// Four rows (in-batch: C = R = 4); rows 1..3 have reward 0, so the loss is row 0's.
	S := make([]float64, 16)
	copy(S, z)
	for _, tc := range []struct {
		v    Variant
		want float64
	}{{VariantLogIn, wantIn}, {VariantLogOut, wantOut}} {
		st := stepOf(g, []int64{10, 11, 12, 13}, []int64{10, 11, 12, 13}, sides{Rewards: []float64{1, 0, 0, 0}})
		st.Set(candidates.Side{Name: candidates.Positives, Kind: candidates.PerEntry, By: "test"}, nil, nil)
		if err := st.SetEntries(candidates.Positives, []int{0, 2}, []float64{1, 1}); err != nil {
			t.Fatal(err)
		}
		l, err := New(Settings{Variant: tc.v, Temperature: 1, Reduction: ReductionSum}, g, tensor.Float64)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := mustRun(t, l, st, 4, 4, false, S); math.Abs(got-tc.want) > 1e-14 {
			t.Errorf("%s: %.17g, want %.17g", tc.v, got, tc.want)
		}
	}
}

// TestMultiPositiveErrors: login and logout refuse the logQ options without logq_probability, a
// step without the data's known positives (naming the side input and the sampler), and a
// side input positives whose entries are not in order or not finite.
func TestMultiPositiveErrors(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Variant: VariantLogIn, UncorrectedPositive: true}, "uncorrected_positive: only for logq, nce and sampled_logistic, and login and logout with logq_probability"},
		{Settings{Variant: VariantLogOut, CorrectAt: CorrectAtScores}, "correct_at: variant logout"},
		{Settings{Variant: VariantLogOut, QSource: QSourceCounts}, "q_source: variant logout"},
		{Settings{Variant: VariantLogIn, Impl: ImplFused}, "impl: variant login has no fused kernel"},
	} {
		s := tc.s
		if err := s.ResolveFor(inBatchG); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want prefix %q", tc.s, err, tc.want)
		}
	}
	l := mustNew(t, Settings{Variant: VariantLogOut}, tensor.Float64)
	st := stepOf(inBatchG, []int64{1, 2}, []int64{1, 2}, sides{})
	h := gorgonia.NewMatrix(gorgonia.NewGraph(), tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("s"))
	if _, err := l.Node(Inputs{Scores: h}, st); err == nil || !strings.Contains(err.Error(),
		"variant logout reads the side input positives, which neither sampler in_batch nor the data declares") {
		t.Errorf("a step without positives: %v", err)
	}
	for _, tc := range []struct {
		idx  []int
		val  []float64
		want string
	}{
		{[]int{2, 1}, []float64{1, 1}, "losses: side input positives: entry 1 has index 1, not ascending in [0, R·C = 4)"},
		{[]int{4}, []float64{1}, "entry 0 has index 4"},
		{[]int{1}, []float64{math.NaN()}, "losses: side input positives: entry 0 (row 0, column 1) is NaN"},
	} {
		st := stepOf(inBatchG, []int64{1, 2}, []int64{1, 2}, sides{})
		st.Set(candidates.Side{Name: candidates.Positives, Kind: candidates.PerEntry, By: "data"}, nil, nil)
		if err := st.SetEntries(candidates.Positives, tc.idx, tc.val); err != nil {
			t.Fatal(err)
		}
		if _, _, err := newHarness(t, l, st, 2, 2, false).run([]float64{1, 2, 3, 4}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("entries %v %v: %v, want %q", tc.idx, tc.val, err, tc.want)
		}
	}
}

// TestUndefinedQ: with a sampler whose probabilities are undefined (candidates.Geometry.QUndefined:
// hard negatives, sce's buckets), every variant that needs the sampler's Q (a logQ correction,
// a weighting by q, gbce's α, mse_gramian's weights) is one error naming the variant and the
// sampler, and the variants that need none are accepted.
func TestUndefinedQ(t *testing.T) {
	hard := candidates.Geometry{Sampler: "hard", Layout: candidates.First, PerRow: 4, QUndefined: true}
	sce := candidates.Geometry{Sampler: "sce", Layout: candidates.First, PerRow: 4, Padded: true, QUndefined: true}
	for _, g := range []candidates.Geometry{hard, sce} {
		for _, s := range []Settings{{Variant: VariantLogQ}, {Variant: VariantNCE}, {Variant: VariantSampledLogistic},
			{Variant: VariantImportance}, {Variant: VariantRelative}, {Variant: VariantTail}, {Variant: VariantTail, Form: FormDecoupled},
			{Variant: VariantMSEGramian}, {Variant: VariantLogQCorrected}, {Variant: VariantGBCE},
			{Variant: VariantLogIn, LogQProbability: LogQProbabilityInclusion}, {Variant: VariantLogOut, LogQProbability: LogQProbabilityExpectedCount}} {
			err := s.ResolveFor(g)
			if err == nil || !strings.HasPrefix(err.Error(), "variant: "+string(s.Variant)+" needs the sampler's probability Q") ||
				!strings.Contains(err.Error(), "sampler "+g.Sampler+" draws by the model's scores") || !strings.Contains(err.Error(), "Q undefined") {
				t.Errorf("%s with %s: %v, want an error naming both and Q undefined", s.Variant, g.Sampler, err)
			}
		}
		for _, s := range []Settings{{Variant: VariantPlain}, {Variant: VariantConstant}, {Variant: VariantConstant, Form: FormDecoupled},
			{Variant: VariantNegativeSampling}, {Variant: VariantPSL, Options: map[string]any{"surrogate": "tanh"}},
			{Variant: VariantDebiasedContrastive}, {Variant: VariantLogIn}, {Variant: VariantLogOut}} {
			if err := s.ResolveFor(g); err != nil {
				t.Errorf("%s with %s: %v, want it accepted (it needs no Q)", s.Variant, g.Sampler, err)
			}
		}
	}
}

// TestReadsPositives: the data's known positives are declared for login and logout and for a
// registered variant whose Custom says Positives, and for no other variant.
func TestReadsPositives(t *testing.T) {
	expr := func(e *Expr) (*gorgonia.Node, error) { return softmaxExpr(e) }
	registerForTest(t, "reads_positives", Custom{Expr: expr, Positives: true})
	registerForTest(t, "reads_no_positives", Custom{Expr: expr})
	for v, want := range map[Variant]bool{VariantLogIn: true, VariantLogOut: true, "reads_positives": true,
		VariantPlain: false, VariantLogQ: false, VariantPSL: false, "reads_no_positives": false} {
		if got := (Settings{Variant: v}).ReadsPositives(); got != want {
			t.Errorf("%s: ReadsPositives %t, want %t", v, got, want)
		}
	}
}
