package losses

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// optionedTestOptions are the options allSettings gives the built-in variants with options of
// their own: values other than the defaults, so that their effect is visible (atan, whose σ
// reaches 0 within the differences of the scores the tests draw).
func optionedTestOptions(v Variant) map[string]any {
	switch v {
	case VariantGBCE:
		return map[string]any{"t": 0.6}
	case VariantPSL:
		return map[string]any{"surrogate": "atan"}
	case VariantDebiasedContrastive:
		return map[string]any{"tau_plus": 0.3}
	}
	return nil
}

// refOptionedRow is the loss of row i (positive column p = refPos) of gbce, psl and
// debiased_contrastive, written from the papers' equations in the linear domain, and adds
// k·∂ℓ_i/∂s_ij into gr.
func refOptionedRow(s *Settings, st *candidates.Step, row, gr []float64, i, c int, k float64) float64 {
	p := refPos(st, i)
	neg := refNegatives(s, st, i, c)
	tau := s.Temperature
	switch s.Variant {
	case VariantGBCE:
		// Petrov & Macdonald: −log σ(s⁺)^β − Σ_{s⁻} log(1 − σ(s⁻)) on the logits s/τ, with the
		// sampling rate α = |I⁻_k|/(|I| − 1) and β = α(t(1 − 1/α) + 1/α), whose limit at α → 0
		// (a row without negatives) is 1 − t.
		t := s.Options["t"].(float64)
		alpha := float64(len(neg)) / float64(st.Items-1)
		beta := 1 - t
		if alpha > 0 {
			beta = alpha * (t*(1-1/alpha) + 1/alpha)
		}
		fp := row[p] / tau
		li := -beta * math.Log(refSigmoid(fp))
		if math.IsInf(li, 0) {
			li = -beta * refLogSigmoid(fp) // σ(f_p) rounded to 0
		}
		gr[p] += -k * beta * refSigmoid(-fp) / tau
		for _, j := range neg {
			fj := row[j] / tau
			li -= refLogSigmoid(-fj)
			gr[j] += k * refSigmoid(fj) / tau
		}
		return li
	case VariantPSL:
		// Yang et al.: log Σ_{j∈{p}∪N} σ(s_j − s_p)^{1/τ}, the positive's own term σ(0)^{1/τ} = 1;
		// σ below 0 (atan, relu) gives the term 0.
		sigma, slope := refSurrogate(Surrogate(s.Options["surrogate"].(string)))
		terms := make([]float64, len(neg))
		sum := 1.0
		for n, j := range neg {
			if v := sigma(row[j] - row[p]); v > 0 {
				terms[n] = math.Pow(v, 1/tau)
			}
			sum += terms[n]
		}
		for n, j := range neg {
			if terms[n] == 0 {
				continue
			}
			d := row[j] - row[p]
			g := k * terms[n] / sigma(d) * slope(d) / tau / sum // k·∂ℓ/∂d_j
			gr[j] += g
			gr[p] -= g
		}
		return math.Log(sum)
	case VariantDebiasedContrastive:
		// Chuang et al.: −log e^{f⁺}/(e^{f⁺} + N·g), g = max{(1/τ⁻)((1/N) Σ e^{f⁻} − τ⁺ e^{f⁺}),
		// e^{−1/τ}}, f = s/τ; every exponential here is taken relative to the row's largest logit
		// m, so that ±1000 scores do not overflow.
		tp := s.Options["tau_plus"].(float64)
		n := float64(len(neg))
		if n == 0 {
			return 0
		}
		fp := row[p] / tau
		m := fp
		for _, j := range neg {
			m = math.Max(m, row[j]/tau)
		}
		pos, sumNeg := math.Exp(fp-m), 0.0
		for _, j := range neg {
			sumNeg += math.Exp(row[j]/tau - m)
		}
		debiased := (sumNeg - tp*n*pos) / (1 - tp) // N·g before the bound, times e^{−m}
		bound := n * math.Exp(-1/tau-m)
		ng := math.Max(debiased, bound)
		den := pos + ng
		if debiased > bound {
			for _, j := range neg {
				gr[j] += k / tau * math.Exp(row[j]/tau-m) / ((1 - tp) * den)
			}
			gr[p] += k / tau * ((pos-tp*n*pos/(1-tp))/den - 1)
		} else {
			gr[p] += k / tau * (pos/den - 1)
		}
		return math.Log(den) - (fp - m)
	}
	panic("refOptionedRow: not a variant with options")
}

// refSurrogate is Yang et al.'s surrogate activation σ and its derivative.
func refSurrogate(s Surrogate) (sigma, slope func(float64) float64) {
	switch s {
	case SurrogateTanh:
		return func(d float64) float64 { return math.Tanh(d) + 1 },
			func(d float64) float64 { return 1 - math.Tanh(d)*math.Tanh(d) }
	case SurrogateAtan:
		return func(d float64) float64 { return math.Atan(d) + 1 },
			func(d float64) float64 { return 1 / (1 + d*d) }
	}
	return func(d float64) float64 { return math.Max(d+1, 0) }, func(float64) float64 { return 1 }
}

// optionedSettings are gbce (t ∈ {0, 0.3, 1}), psl (each surrogate) and debiased_contrastive
// (τ⁺ ∈ {0, 0.1, 0.7}) for every geometry and accidental-hit removal that ResolveFor accepts, at
// τ = 0.7 and at the default τ = 0.05 (the reductions and rewards are TestAgainstReference's).
func optionedSettings(t *testing.T) []tcase {
	t.Helper()
	options := map[Variant][]map[string]any{
		VariantGBCE:                {{"t": 0.0}, {"t": 0.3}, {"t": 1.0}},
		VariantPSL:                 {{"surrogate": "tanh"}, {"surrogate": "atan"}, {"surrogate": "relu"}},
		VariantDebiasedContrastive: {{"tau_plus": 0.0}, {"tau_plus": 0.1}, {"tau_plus": 0.7}},
	}
	var out []tcase
	for _, v := range []Variant{VariantGBCE, VariantPSL, VariantDebiasedContrastive} {
		n := 0
		for _, o := range options[v] {
			for _, geo := range geometries {
				for _, hits := range []bool{false, true} {
					for _, tau := range []float64{0.7, 0.05} {
						tc := tcase{Settings{Variant: v, RemoveAccidentalHits: hits, Temperature: tau, Options: o}, geo}
						if tc.ResolveFor(geo) == nil {
							out = append(out, tc)
							n++
						}
					}
				}
			}
		}
		if n < 3*3*2*2 {
			t.Fatalf("variant %s: only %d settings resolve", v, n)
		}
	}
	return out
}

// optionName is name(tc) with the temperature and the options.
func optionName(tc tcase) string {
	return fmt.Sprintf("%s/τ=%g/%v", name(tc), tc.Temperature, tc.Options)
}

// TestOptionedAgainstReference: gbce, psl and debiased_contrastive at each option value, value
// and gradient against the float64 reference written from the papers (to 1e-9 in float64, 1e-4
// in float32), on random scores, on cosine-range scores (|s| ≤ 1, where debiased_contrastive's
// bound e^{−1/τ} never binds) and on ±1000 scores with tiny probabilities; and the float64
// gradient against central differences (at τ = 0.25).
func TestOptionedAgainstReference(t *testing.T) {
	gen := newCaseGen(21, 9)
	for _, tc := range optionedSettings(t) {
		for _, kind := range []string{"normal", "cosine", "extreme"} {
			for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
				l := tc.newLoss(t, dt)
				p := gen.gen(l.Settings(), l.Geometry(), 6, kind == "extreme")
				if kind == "cosine" {
					for k := range p.S {
						p.S[k] = math.Tanh(p.S[k])
					}
				}
				checkReference(t, optionName(tc)+"/"+kind+"/"+dt.String(), l, p)
			}
		}
		if tc.Temperature == 0.7 {
			// At τ = 0.25 rather than 0.7: a term σ(d)^{1/τ} of atan or relu that vanishes at
			// σ = 0 has unbounded curvature there for 1/τ < 2, which central differences do
			// not resolve when a draw lands close to it.
			tc.Temperature = 0.25
			l := tc.newLoss(t, tensor.Float64)
			p := gen.gen(l.Settings(), l.Geometry(), 4, false)
			checkFiniteDifferences(t, optionName(tc), newHarness(t, l, p.st, p.b, p.c, true), p.S)
		}
	}
}

// TestGBCEZeroIsBCE: gbce at t = 0 (β = 1) is negative_sampling, the binary cross-entropy of
// the raw logits, value and gradient, with each of its implementations.
func TestGBCEZeroIsBCE(t *testing.T) {
	gen := newCaseGen(22, 50)
	for _, geo := range []candidates.Geometry{
		{Sampler: "uniform", Layout: candidates.First, Extra: 7, Uniform: true},
		{Sampler: "uniform_per_row", Layout: candidates.First, PerRow: 7, Uniform: true},
	} {
		for _, hits := range []bool{false, true} {
			base := Settings{RemoveAccidentalHits: hits, Temperature: 0.3}
			g := base
			g.Variant, g.Options = VariantGBCE, map[string]any{"t": 0.0}
			gbce := tcase{g, geo}.newLoss(t, tensor.Float64)
			p := gen.gen(gbce.Settings(), gbce.Geometry(), 8, false)
			got, gGot := mustRun(t, gbce, p.st, p.b, p.c, true, p.S)
			for _, im := range []Impl{ImplFused, ImplExpression} {
				b := base
				b.Variant, b.Impl = VariantNegativeSampling, im
				want, gWant := mustRun(t, tcase{b, geo}.newLoss(t, tensor.Float64), p.st, p.b, p.c, true, p.S)
				checkClose(t, fmt.Sprintf("gbce t=0 vs negative_sampling %s %s hits=%v", im, geo.Sampler, hits),
					got, want, gGot, gWant, 1e-12)
			}
		}
	}
}

// firstG is the geometry of a by-hand test of one row: its positive, then k uniform draws.
func firstG(k int) candidates.Geometry {
	return candidates.Geometry{Sampler: "uniform", Layout: candidates.First, Extra: k, Uniform: true}
}

// stepOfItems is a step of geometry g over a corpus of m items without side inputs.
func stepOfItems(g candidates.Geometry, m int) *candidates.Step {
	st := stepOf(g, nil, nil, sides{})
	st.Items = m
	return st
}

// TestGBCEBeta reads β off the loss of one row whose positive logit is 0 and whose negatives'
// logits are −1000 (so that ℓ = β·log 2) and compares it with the paper's formula at gSASRec's
// released MovieLens-1M configuration: |I| = 3416 items, k = 256 negatives, so α = 256/3415 =
// 0.0749634…; t = 0.75 gives β = α(0.75(1 − 1/α) + 1/α) = 0.25 + 0.75α = 0.3062225…; t = 0 gives
// β = 1 (BCE) and t = 1 gives β = α (calibrated).
func TestGBCEBeta(t *testing.T) {
	const items, k = 3416, 256
	alpha := 256.0 / 3415.0
	for _, tc := range []struct{ t, beta float64 }{
		{0.75, 0.3062225475841874}, // 0.25 + 0.75·256/3415, by hand
		{0, 1},
		{1, alpha},
	} {
		l := tcase{Settings{Variant: VariantGBCE, Temperature: 1, Options: map[string]any{"t": tc.t}}, firstG(k)}.newLoss(t, tensor.Float64)
		S := make([]float64, 1+k)
		for j := 1; j < len(S); j++ {
			S[j] = -1000
		}
		got, _ := mustRun(t, l, stepOfItems(firstG(k), items), 1, 1+k, false, S)
		if beta := got / math.Ln2; math.Abs(beta-tc.beta) > 1e-14 {
			t.Errorf("t = %g: β = %.16g, want %.16g", tc.t, beta, tc.beta)
		}
	}
}

// TestDebiasedContrastiveZeroPriorIsPlain: at τ⁺ = 0 and scores in [−1, 1] (so that the bound
// e^{−1/τ} never binds) debiased_contrastive is the plain softmax cross-entropy over {p} ∪ N_i,
// value and gradient, for every geometry.
func TestDebiasedContrastiveZeroPriorIsPlain(t *testing.T) {
	gen := newCaseGen(23, 40)
	for _, geo := range geometries {
		if geo.Layout == candidates.Corpus {
			continue
		}
		for _, hits := range []bool{false, true} {
			base := Settings{RemoveAccidentalHits: hits, Temperature: 0.1}
			d := base
			d.Variant, d.Options = VariantDebiasedContrastive, map[string]any{"tau_plus": 0.0}
			dcl := tcase{d, geo}.newLoss(t, tensor.Float64)
			p := gen.gen(dcl.Settings(), dcl.Geometry(), 8, false)
			for k := range p.S {
				p.S[k] = math.Tanh(p.S[k])
			}
			got, gGot := mustRun(t, dcl, p.st, p.b, p.c, true, p.S)
			b := base
			b.Variant = VariantPlain
			want, gWant := mustRun(t, tcase{b, geo}.newLoss(t, tensor.Float64), p.st, p.b, p.c, true, p.S)
			checkClose(t, fmt.Sprintf("debiased_contrastive τ⁺=0 vs plain %s hits=%v", geo.Sampler, hits), got, want, gGot, gWant, 1e-12)
		}
	}
}

// TestDebiasedContrastiveBound pins both branches of g on one row by hand (τ = 1, two
// negatives, so N = 2): negative scores log 2 and log 4 give Σ e^{f⁻} = 6. With positive score 0
// and τ⁺ = 0.5, N·g = (6 − 0.5·2·1)/0.5 = 10, above the bound 2e^{−1}: ℓ = log(1 + 10), the
// negatives' gradients e^{f⁻}/((1 − τ⁺)(1 + 10)) = 2/5.5 and 4/5.5. With positive score 3 and
// τ⁺ = 0.9 the estimate (6 − 0.9·2·e³)/0.1 is negative and the bound binds: ℓ = log(e³ +
// 2e^{−1}) − 3, with no gradient into the negatives.
func TestDebiasedContrastiveBound(t *testing.T) {
	for _, tc := range []struct {
		tauPlus, pos float64
		want         float64
		gWant        []float64
	}{
		{0.5, 0, math.Log(11), []float64{1/11.0*(1-0.5*2/0.5) - 1, 2 / 5.5, 4 / 5.5}},
		{0.9, 3, math.Log(math.Exp(3)+2*math.Exp(-1)) - 3,
			[]float64{math.Exp(3)/(math.Exp(3)+2*math.Exp(-1)) - 1, 0, 0}},
	} {
		l := tcase{Settings{Variant: VariantDebiasedContrastive, Temperature: 1,
			Options: map[string]any{"tau_plus": tc.tauPlus}}, firstG(2)}.newLoss(t, tensor.Float64)
		got, g := mustRun(t, l, stepOfItems(firstG(2), 10), 1, 3, true, []float64{tc.pos, math.Log(2), math.Log(4)})
		checkClose(t, fmt.Sprintf("τ⁺ = %g", tc.tauPlus), got, tc.want, g, tc.gWant, 1e-14)
	}
}

// TestPSLByHand pins each surrogate on one row (τ = 0.5, positive score 0.5, negative scores
// 0.9, −0.8 and −1.2, differences d = 0.4, −1.3, −1.7): ℓ = log(1 + Σ_j σ(d_j)²). For atan,
// d = −1.7 is below −tan 1 and adds nothing; for relu, −1.3 and −1.7 add nothing.
func TestPSLByHand(t *testing.T) {
	S := []float64{0.5, 0.9, -0.8, -1.2}
	sq := func(x float64) float64 { return x * x }
	for _, tc := range []struct {
		s    Surrogate
		want float64
	}{
		{SurrogateTanh, math.Log(1 + sq(math.Tanh(0.4)+1) + sq(math.Tanh(-1.3)+1) + sq(math.Tanh(-1.7)+1))},
		{SurrogateAtan, math.Log(1 + sq(math.Atan(0.4)+1) + sq(math.Atan(-1.3)+1))},
		{SurrogateReLU, math.Log(1 + sq(1.4))},
	} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			l := tcase{Settings{Variant: VariantPSL, Temperature: 0.5,
				Options: map[string]any{"surrogate": string(tc.s)}}, firstG(3)}.newLoss(t, dt)
			got, _ := mustRun(t, l, stepOfItems(firstG(3), 10), 1, 4, false, S)
			tol := 1e-15
			if dt == tensor.Float32 {
				tol = 1e-6
			}
			if math.Abs(got-tc.want) > tol*tc.want {
				t.Errorf("%s %v: loss %.17g, want %.17g", tc.s, dt, got, tc.want)
			}
		}
	}
}

// TestOptionedErrors: each option out of its range, an unknown surrogate, a missing one, and
// gbce with negatives that are not uniform draws (the batch's, or a popularity sampler's, which
// only its β = 0 makes uniform) are one error naming the key and the sampler.
func TestOptionedErrors(t *testing.T) {
	uniform := func(v Variant, o map[string]any) tcase {
		return tcase{Settings{Variant: v, Options: o}, firstG(4)}
	}
	gbceWith := func(g candidates.Geometry) tcase { return tcase{Settings{Variant: VariantGBCE}, g} }
	popularity := candidates.Geometry{Sampler: "popularity", Layout: candidates.First, Extra: 4}
	uniformPop := popularity
	uniformPop.Uniform = true // β = 0
	for _, tc := range []struct {
		in   tcase
		want string
	}{
		{uniform(VariantGBCE, map[string]any{"t": 1.5}), "options.t: must be in [0, 1], got 1.5"},
		{uniform(VariantGBCE, map[string]any{"t": -0.1}), "options.t: must be in [0, 1], got -0.1"},
		{uniform(VariantGBCE, map[string]any{"beta": 0.5}), "options.beta: unknown option of variant gbce (it has: t)"},
		{uniform(VariantDebiasedContrastive, map[string]any{"tau_plus": 1.0}), "options.tau_plus: must be in [0, 1), got 1"},
		{uniform(VariantDebiasedContrastive, map[string]any{"tau_plus": -0.5}), "options.tau_plus: must be in [0, 1), got -0.5"},
		{uniform(VariantPSL, map[string]any{"surrogate": "exp"}),
			`options.surrogate: variant psl: unknown "exp" (allowed: tanh, atan, relu)`},
		{uniform(VariantPSL, nil), "options.surrogate: required for variant psl (one of tanh, atan, relu)"},
		{gbceWith(inBatchG), `variant: gbce needs negatives drawn uniformly (sampler.kind = "uniform" or "uniform_per_row")`},
		{gbceWith(inBatchG), "sampler in_batch takes them from the batch"},
		{gbceWith(mixedG), "sampler mixed takes them from the batch"},
		{gbceWith(popularity), `variant: gbce needs negatives drawn uniformly`},
		{gbceWith(popularity), "sampler popularity does not draw them uniformly"},
		{gbceWith(candidates.Geometry{Sampler: "in_batch_unique", Layout: candidates.First, Extra: 4}),
			"sampler in_batch_unique does not draw them uniformly"},
		{gbceWith(uniformPop), ""},
		{gbceWith(uniformPerRowG), ""},
		{gbceWith(paddedFirstG), ""},
		{uniform(VariantGBCE, nil), ""},
		{tcase{Settings{Variant: VariantPSL, LogQProbability: LogQProbabilityInclusion, Options: map[string]any{"surrogate": "relu"}}, inBatchG},
			"logq_probability: only for logq, nce, sampled_logistic, login and logout, not variant psl"},
		{tcase{Settings{Variant: VariantDebiasedContrastive, CorrectAt: CorrectAtScores}, inBatchG}, "correct_at: variant debiased_contrastive"},
		{tcase{Settings{Variant: VariantDebiasedContrastive, UncorrectedPositive: true}, inBatchG}, "uncorrected_positive: only for"},
		{tcase{Settings{Variant: VariantPSL, Impl: ImplFused, Options: map[string]any{"surrogate": "relu"}}, inBatchG},
			"impl: variant psl has no fused kernel"},
		{tcase{Settings{Variant: VariantLogQ, Options: map[string]any{"t": 0.5}}, inBatchG}, "options.t: variant logq has no options"},
	} {
		s := tc.in.Settings
		err := s.ResolveFor(tc.in.g)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("ResolveFor(%+v, %v) = %v, want nil", tc.in.Settings, tc.in.g, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ResolveFor(%+v, %v) = %v, want %q", tc.in.Settings, tc.in.g, err, tc.want)
		}
	}
}

// TestOptionedDefaults: gbce's t and debiased_contrastive's τ⁺ resolve to their documented
// defaults, which the resolved options then state; a per-variant table [loss.options.<variant>]
// is taken by its own variant only.
func TestOptionedDefaults(t *testing.T) {
	for _, tc := range []struct {
		v       Variant
		key     string
		def     float64
		wantFam Family
	}{
		{VariantGBCE, "t", DefaultGBCET, FamilyLogistic},
		{VariantDebiasedContrastive, "tau_plus", DefaultTauPlus, FamilySoftmax},
	} {
		s := Settings{Variant: tc.v}
		if err := s.ResolveFor(firstG(3)); err != nil {
			t.Fatal(err)
		}
		if got := s.Options[tc.key]; got != tc.def {
			t.Errorf("%s: resolved options %v, want %s = %v", tc.v, s.Options, tc.key, tc.def)
		}
		if s.Family() != tc.wantFam || s.hasFused() {
			t.Errorf("%s: family %q, fused %v", tc.v, s.Family(), s.hasFused())
		}
	}
	tables := map[string]any{"gbce": map[string]any{"t": 0.2}, "psl": map[string]any{"surrogate": "relu"}}
	for _, tc := range []struct {
		v    Variant
		want map[string]any
	}{
		{VariantGBCE, map[string]any{"t": 0.2}},
		{VariantPSL, map[string]any{"surrogate": "relu"}},
		{VariantDebiasedContrastive, map[string]any{"tau_plus": DefaultTauPlus}},
	} {
		s := Settings{Variant: tc.v, Options: tables}
		if err := s.ResolveFor(firstG(3)); err != nil {
			t.Fatalf("%s: %v", tc.v, err)
		}
		if fmt.Sprint(s.Options) != fmt.Sprint(tc.want) {
			t.Errorf("%s: resolved options %v, want %v", tc.v, s.Options, tc.want)
		}
	}
}

// TestItemsInput: an expression that reads the corpus size refuses a step without it.
func TestItemsInput(t *testing.T) {
	l := tcase{Settings{Variant: VariantGBCE}, firstG(2)}.newLoss(t, tensor.Float64)
	_, _, err := newHarness(t, l, stepOfItems(firstG(2), 1), 1, 3, false).run([]float64{0, 0, 0})
	if err == nil || !strings.Contains(err.Error(), "the step's Items = 1, the corpus size M must be at least 2") {
		t.Errorf("gbce with Items = 1: %v", err)
	}
}

// TestLog1mExp: y = log(1 − e^x) is an involution on x < 0 (1 − e^y = e^x), which holds to
// rounding from x = −700 to −1e-300 through both of Mächler's branches (within (2 + |y|) units
// of rounding: the round trip's condition number is about |y| near 0); its gradient is
// −e^x/(1 − e^x); for x ≥ 0 it is −Inf with gradient 0. A naive log(1 − e^x) loses all digits
// at x = −1e-17 and most at −1e-12.
func TestLog1mExp(t *testing.T) {
	xs := []float64{-700, -40, -3, -1, -math.Ln2 - 1e-9, -math.Ln2 + 1e-9, -0.3, -1e-5, -1e-12, -1e-300, 0, 0.5, math.Inf(1)}
	for _, x := range xs {
		y, dy := log1mExp(x)
		if x >= 0 {
			if !math.IsInf(y, -1) || dy != 0 {
				t.Errorf("Log1mExp(%g) = %g, slope %g; want −Inf, 0", x, y, dy)
			}
			continue
		}
		if back, _ := log1mExp(y); math.Abs(back-x) > 1.2e-16*(2+math.Abs(y))*math.Abs(x) {
			t.Errorf("Log1mExp(Log1mExp(%g)) = %.17g", x, back)
		}
		if want := -math.Exp(x) / -math.Expm1(x); math.Abs(dy-want) > 1e-15*math.Abs(want) {
			t.Errorf("Log1mExp'(%g) = %.17g, want %.17g", x, dy, want)
		}
	}
}
