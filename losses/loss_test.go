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
	"github.com/samplingbias/workbench/internal/ops"
)

// mustNew is the loss of settings s for the candidates of its default geometry (geometryOf).
func mustNew(t testing.TB, s Settings, dt tensor.Dtype) *Loss {
	t.Helper()
	l, err := New(s, geometryOf(s), dt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestAgainstReference: every variant × form × sampler × option, value and
// gradient of the Gorgonia node against the plain-Go float64 reference, on
// random inputs with duplicate items, accidental hits, skewed q and rewards.
func TestAgainstReference(t *testing.T) {
	for _, extreme := range []bool{false, true} {
		gen := newCaseGen(1, 9)
		for _, s0 := range allSettings(t) {
			if !isBuiltin(s0.Variant) {
				continue // a registered variant has no reference here
			}
			for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
				for _, im := range impls(s0) {
					s := withImpl(s0, im)
					l := s.newLoss(t, dt)
					p := gen.gen(l.Settings(), l.Geometry(), 6, extreme)
					what := name(s) + "/" + dt.String()
					if extreme {
						what += "/extreme"
					}
					checkReference(t, what, l, p)
				}
			}
		}
	}
}

// checkReference fails unless the node of l (with its gradient) on problem p equals the float64
// reference refLoss, to 1e-9 in float64 and 1e-4 in float32 (whose reference takes the scores
// rounded to float32, as the node sees them).
func checkReference(t *testing.T, what string, l *Loss, p problem) {
	t.Helper()
	got, gGot, err := newHarness(t, l, p.st, p.b, p.c, true).run(p.S)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	tol, S := 1e-9, p.S
	if l.dt == tensor.Float32 {
		tol, S = 1e-4, round32(p.S)
	}
	want, gWant := refLoss(&p.s, p.st, S, p.b, p.c)
	checkClose(t, what, got, want, gGot, gWant, tol)
}

// TestFiniteDifferences checks the float64 gradient of every variant, both
// implementations, against central differences of the node's own value.
func TestFiniteDifferences(t *testing.T) {
	gen := newCaseGen(2, 9)
	for _, s0 := range allSettings(t) {
		if s0.Variant == VariantLogQCorrected {
			continue // its row weight is a stop-gradient: TestLogQCorrectedFiniteDifferences
		}
		for _, im := range impls(s0) {
			s := withImpl(s0, im)
			l := s.newLoss(t, tensor.Float64)
			p := gen.gen(l.Settings(), l.Geometry(), 4, false)
			checkFiniteDifferences(t, name(s), newHarness(t, l, p.st, p.b, p.c, true), p.S)
		}
	}
}

// checkFiniteDifferences fails unless the float64 gradient of h at S equals the central
// differences of its value, entry by entry, to 1e-7 of their largest.
func checkFiniteDifferences(t *testing.T, what string, h *harness, S []float64) {
	t.Helper()
	_, g, err := h.run(S)
	if err != nil {
		t.Fatal(err)
	}
	fd := centralDifferences(func(x []float64) float64 {
		v, _, err := h.run(x)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}, S, 1e-5)
	scale := maxAbs(fd)
	for k := range fd {
		if math.Abs(g[k]-fd[k]) > 1e-7*scale+1e-9 {
			t.Errorf("%s: grad[%d] = %.12g, central difference %.12g", what, k, g[k], fd[k])
			return
		}
	}
}

// TestLogQConstantIsPlain: with the same p̂ for every column and the positive
// corrected too, logq equals plain (softmax shift invariance), for both
// placements of the correction and both implementations.
func TestLogQConstantIsPlain(t *testing.T) {
	gen := newCaseGen(3, 9)
	for _, at := range []CorrectAt{CorrectAtLogits, CorrectAtScores} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			for _, im := range []Impl{ImplFused, ImplExpression} {
				what := fmt.Sprintf("%s %v %s", at, dt, im)
				plain := mustNew(t, Settings{Impl: im}, dt)
				logq := mustNew(t, Settings{Variant: VariantLogQ, CorrectAt: at, LogQProbability: LogQProbabilityInclusion, Impl: im}, dt)
				p := gen.gen(plain.Settings(), inBatchG, 8, false)
				for j := range pCol(p.st) {
					pCol(p.st)[j] = math.Log(0.03)
				}
				for i := range pPos(p.st) {
					pPos(p.st)[i] = math.Log(0.03)
				}
				v1, g1 := mustRun(t, plain, p.st, p.b, p.c, true, p.S)
				v2, g2 := mustRun(t, logq, p.st, p.b, p.c, true, p.S)
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-6
				}
				checkClose(t, "logq(const p̂) vs plain "+what, v2, v1, g2, g1, tol)
				// The uncorrected positive breaks the invariance.
				unc := mustNew(t, Settings{Variant: VariantLogQ, CorrectAt: at, UncorrectedPositive: true,
					LogQProbability: LogQProbabilityInclusion, Impl: im}, dt)
				v3, _ := mustRun(t, unc, p.st, p.b, p.c, false, p.S)
				if math.Abs(v3-v1) < 0.1 {
					t.Errorf("%s: uncorrected positive gives %v, plain %v: the option has no effect", what, v3, v1)
				}
			}
		}
	}
}

// TestCorrectAtPlacement pins the two placements of the correction on a
// hand-computed example: one row, τ = 0.5, scores (1, 0), log p̂ = (log 0.5, log 0.25).
func TestCorrectAtPlacement(t *testing.T) {
	st := stepOf(inBatchG, nil, nil, sides{LogP: []float64{math.Log(0.5), math.Log(0.25)},
		PosLogP: []float64{math.Log(0.5), math.Log(0.25)}})
	S := []float64{1, 0, 0, 0}
	for _, tc := range []struct {
		at   CorrectAt
		want float64
	}{
		// logits: z = s/τ − log p̂ = (2 + ln 2, 0 + ln 4); −log P = log(1 + e^{ln 4 − 2 − ln 2}) = log(1 + 2e^{−2}).
		{CorrectAtLogits, math.Log(1 + 2*math.Exp(-2))},
		// scores: z = (s − log p̂)/τ = (2 + 2 ln 2, 4 ln 2); −log P = log(1 + e^{2 ln 2 − 2}) = log(1 + 4e^{−2}).
		{CorrectAtScores, math.Log(1 + 4*math.Exp(-2))},
	} {
		// Row 1 has scores (0, 0): z = (ln 2, ln 4) or (2 ln 2, 4 ln 2); its loss is
		// log(1 + e^{ln 2 − ln 4}) = log 1.5 or log(1 + e^{2 ln 2 − 4 ln 2}) = log 1.25.
		row1 := math.Log(1.5)
		if tc.at == CorrectAtScores {
			row1 = math.Log(1.25)
		}
		for _, im := range []Impl{ImplFused, ImplExpression} {
			l := mustNew(t, Settings{Variant: VariantLogQ, Temperature: 0.5, CorrectAt: tc.at, Reduction: ReductionSum,
				LogQProbability: LogQProbabilityInclusion, Impl: im}, tensor.Float64)
			got, _ := mustRun(t, l, st, 2, 2, false, S)
			if math.Abs(got-(tc.want+row1)) > 1e-14 {
				t.Errorf("correct_at = %s %s: loss %.17g, want %.17g", tc.at, im, got, tc.want+row1)
			}
		}
	}
}

// TestImportanceSign pins the sign of Rawat's weights: w·e^f = e^{f + log w}.
// One row, positive score 0, two negatives with score 0 and q = (0.5, 0.25),
// m = 2: importance weights 1/(m q) = (1, 2), so the loss is log(1 + 1 + 2) =
// log 4. The sign printed in Remark 3 (f − log w) would give log(1 + 1 + 1/2).
func TestImportanceSign(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		uniform2 := candidates.Geometry{Sampler: "uniform", Layout: candidates.First, Extra: 2}
		l := tcase{Settings{Variant: VariantImportance, Temperature: 1}, uniform2}.newLoss(t, dt)
		st := stepOf(uniform2, nil, nil, sides{LogQ: []float64{0, math.Log(0.5), math.Log(0.25)}})
		got, _ := mustRun(t, l, st, 1, 3, false, []float64{0, 0, 0})
		if math.Abs(got-math.Log(4)) > 1e-6 {
			t.Errorf("%v: importance loss %.9g, want log 4 = %.9g (log 2.5 = %.9g is the wrong sign)", dt, got, math.Log(4), math.Log(2.5))
		}
	}
}

// TestDeterministic: the float32 B = 256 node gives bit-identical values and
// gradients for 1, 2, 3 and 7 worker goroutines and on repeated runs.
func TestDeterministic(t *testing.T) {
	gen := newCaseGen(4, 50)
	for _, s := range []Settings{{Variant: VariantLogQ, RemoveAccidentalHits: true}, {Variant: VariantNCE}, {Variant: VariantMSEGramian}} {
		l := mustNew(t, s, tensor.Float32)
		p := gen.gen(l.Settings(), l.Geometry(), 256, false)
		h := newHarness(t, l, p.st, p.b, p.c, true)
		var v0 float64
		var g0 []float64
		for n, w := range []int{1, 2, 3, 7, 2} {
			h.op.workers = w
			v, g, err := h.run(p.S)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				v0, g0 = v, g
				continue
			}
			if math.Float64bits(v) != math.Float64bits(v0) {
				t.Errorf("%s: %d workers: loss %v != %v", s.Variant, w, v, v0)
			}
			for k := range g {
				if math.Float64bits(g[k]) != math.Float64bits(g0[k]) {
					t.Errorf("%s: %d workers: grad[%d] %v != %v", s.Variant, w, k, g[k], g0[k])
					break
				}
			}
		}
	}
}

// TestGradientScaling: the gradient op scales by the incoming gradient (here
// 3·loss) and recomputes when no forward pass cached the gradient.
func TestGradientScaling(t *testing.T) {
	gen := newCaseGen(5, 9)
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		l := mustNew(t, Settings{Variant: VariantTail, Temperature: 0.3}, dt)
		p := gen.gen(l.Settings(), inBatchG, 5, false)
		g := gorgonia.NewGraph()
		scores := gorgonia.NewMatrix(g, dt, gorgonia.WithShape(p.b, p.c), gorgonia.WithName("s"))
		loss, err := l.Node(Inputs{Scores: scores}, p.st)
		if err != nil {
			t.Fatal(err)
		}
		three := gorgonia.NewConstant(float32(3))
		if dt == tensor.Float64 {
			three = gorgonia.NewConstant(3.0)
		}
		cost := gorgonia.Must(gorgonia.Mul(loss, three))
		gs, err := gorgonia.Grad(cost, scores)
		if err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(g)
		defer vm.Close()
		S := p.S
		if dt == tensor.Float32 {
			S = round32(p.S)
		}
		if err := gorgonia.Let(scores, dense(dt, S, p.b, p.c)); err != nil {
			t.Fatal(err)
		}
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		want, gWant := refLoss(&p.s, p.st, S, p.b, p.c)
		for k := range gWant {
			gWant[k] *= 3
		}
		tol := 1e-9
		if dt == tensor.Float32 {
			tol = 1e-4
		}
		checkClose(t, "3·tail "+dt.String(), values(loss.Value())[0], want, values(gs[0].Value()), gWant, tol)

		// The gradient op alone, without a cached forward pass.
		op := loss.Op().(*lossOp)
		op.st.gradSrc = nil
		gop := newLossGradOp(op)
		one := gorgonia.Value(gorgonia.NewF64(1))
		if dt == tensor.Float32 {
			one = gorgonia.NewF32(1)
		}
		out, err := gop.Do(dense(dt, S, p.b, p.c), loss.Value(), one)
		if err != nil {
			t.Fatal(err)
		}
		for k := range gWant {
			gWant[k] /= 3
		}
		checkClose(t, "recomputed grad "+dt.String(), want, want, values(out), gWant, tol)
	}
}

// TestMSEGramianFromEmbeddings: on S = UVᵀ the Gramian term computed from the
// scores equals λ/(B·C)·<UᵀU, VᵀWV> computed from the embeddings (Krichene
// et al.), W = diag(1/(M·q_j)) the in-batch columns' weights, for both
// implementations.
func TestMSEGramianFromEmbeddings(t *testing.T) {
	gen := newCaseGen(6, 9)
	const b, d = 5, 3
	p := gen.gen(mustNew(t, Settings{Variant: VariantMSEGramian, GramianWeight: 0.7}, tensor.Float64).Settings(), inBatchG, b, false)
	p.st.Set(candidates.Side{Name: candidates.Rewards, Kind: candidates.PerRow}, nil, ones(b))
	rng := gen.rng
	U, V := make([]float64, b*d), make([]float64, b*d)
	for k := range U {
		U[k], V[k] = rng.NormFloat64(), rng.NormFloat64()
	}
	S := make([]float64, b*b)
	for i := range b {
		for j := range b {
			for k := range d {
				S[i*b+j] += U[i*d+k] * V[j*d+k]
			}
		}
	}
	// <UᵀU, VᵀV> = Σ_kl (Σ_i U_ik U_il)(Σ_j V_jk V_jl).
	inner := 0.0
	for k := range d {
		for m := range d {
			gu, gv := 0.0, 0.0
			for i := range b {
				gu += U[i*d+k] * U[i*d+m]
				gv += V[i*d+k] * V[i*d+m] / (float64(p.st.Items) * math.Exp(qCol(p.st)[i]))
			}
			inner += gu * gv
		}
	}
	mse := 0.0
	for i := range b {
		mse += (S[i*b+i] - 1) * (S[i*b+i] - 1)
	}
	want := mse/b + 0.7*inner/(b*b)
	for _, im := range []Impl{ImplFused, ImplExpression} {
		l := mustNew(t, Settings{Variant: VariantMSEGramian, GramianWeight: 0.7, Impl: im}, tensor.Float64)
		got, _ := mustRun(t, l, p.st, b, b, false, S)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: mse_gramian %.17g, want %.17g", im, got, want)
		}
	}
}

// TestExecutionErrors: a malformed step is an error of the machine run, never
// a panic, for the fused kernel and the expression (whose binding builds the
// same plan).
func TestExecutionErrors(t *testing.T) {
	gen := newCaseGen(7, 9)
	cases := []struct {
		s      Settings
		break_ func(st *candidates.Step)
		want   string
	}{
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityInclusion}, func(st *candidates.Step) { setCol(st, candidates.LogP, pCol(st)[:2]) }, "side input log_p has 2 values, want C = 5"},
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityInclusion}, func(st *candidates.Step) { setRow(st, candidates.LogP, nil) }, "side input log_p of the rows has 0 values"},
		{Settings{Variant: VariantLogQ}, func(st *candidates.Step) { setCol(st, candidates.LogQ, qCol(st)[:2]) }, "side input log_q has 2 values"},
		{Settings{Variant: VariantNCE}, func(st *candidates.Step) { qPos(st)[1] = math.NaN() }, "side input log_q of row 1's positive = NaN"},
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityDedupe}, func(st *candidates.Step) { st.ColItem = nil }, "the step's ColItem has 0 values"},
		{Settings{Variant: VariantPlain}, func(st *candidates.Step) { rewardsOf(st)[3] = -0.5 }, "the reward of row 3 = -0.5 is negative"},
		{Settings{Variant: VariantImportance}, func(st *candidates.Step) { qCol(st)[1] = math.NaN() }, "side input log_q of column 1 = NaN"},
		{Settings{Variant: VariantImportance}, func(st *candidates.Step) { qCol(st)[1] = math.Inf(-1) }, "side input log_q of column 1 = -Inf"},
		{Settings{Variant: VariantTail}, func(st *candidates.Step) { priorPos(st)[0] = math.Inf(1) }, "side input log_prior of row 0's positive = +Inf"},
		{Settings{Variant: VariantRelative}, func(st *candidates.Step) { setRow(st, candidates.LogQ, qPos(st)[:1]) }, "side input log_q of the rows has 1 values"},
		{Settings{Variant: VariantPlain, RemoveAccidentalHits: true}, func(st *candidates.Step) { st.RowItem = nil }, "the step's RowItem"},
		{Settings{Variant: VariantPlain, RemoveAccidentalHits: true}, func(st *candidates.Step) { st.ColItem = nil }, "the step's ColItem"},
		{Settings{Variant: VariantPlain}, func(st *candidates.Step) { setRow(st, candidates.Rewards, []float64{1}) }, "side input rewards has 1 values"},
		{Settings{Variant: VariantPlain}, func(st *candidates.Step) { rewardsOf(st)[2] = math.Inf(1) }, "the reward of row 2 = +Inf is not finite"},
		{Settings{Variant: VariantPlain}, func(st *candidates.Step) { st.Geometry = uniformG }, "the step is of sampler uniform"},
		{Settings{Variant: VariantFull}, func(st *candidates.Step) { st.PosCol[3] = 99 }, "the step's PosCol[3] = 99"},
		{Settings{Variant: VariantFull}, func(st *candidates.Step) { st.PosCol = nil }, "the step's PosCol has 0 values"},
		{Settings{Variant: VariantLogitAdjusted}, func(st *candidates.Step) { priorCol(st)[0] = math.NaN() }, "side input log_prior of column 0 = NaN"},
		{Settings{Variant: VariantMSEGramian}, func(st *candidates.Step) { st.Items = 0 }, "the step's Items = 0"},
		{Settings{Variant: VariantMSEGramian}, func(st *candidates.Step) { setCol(st, candidates.LogQ, nil) }, "side input log_q has 0 values"},
	}
	for _, tc := range cases {
		for _, im := range []Impl{ImplFused, ImplExpression} {
			tc.s.Impl = im
			l := mustNew(t, tc.s, tensor.Float64)
			p := gen.gen(l.Settings(), l.Geometry(), 5, false)
			if rewardsOf(p.st) == nil {
				p.st.Set(candidates.Side{Name: candidates.Rewards, Kind: candidates.PerRow}, nil, ones(5))
			}
			h := newHarness(t, l, p.st, p.b, p.c, true)
			if _, _, err := h.run(p.S); err != nil {
				t.Fatalf("%s: valid step: %v", name(tcase{l.s, l.g}), err)
			}
			tc.break_(p.st)
			_, _, err := h.run(p.S)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want one containing %q", name(tcase{l.s, l.g}), err, tc.want)
			}
		}
	}
	// Non-finite scores give an error, not a NaN loss.
	l := mustNew(t, Settings{}, tensor.Float64)
	p := gen.gen(l.Settings(), inBatchG, 3, false)
	p.S[4] = math.NaN()
	if _, _, err := newHarness(t, l, p.st, p.b, p.c, false).run(p.S); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("NaN score: error %v", err)
	}
}

// setCol and setRow replace the per-column or per-row values of a step's side input.
func setCol(st *candidates.Step, name string, col []float64) {
	sd, _ := st.Lookup(name)
	st.Set(sd, col, st.Row(name))
}

func setRow(st *candidates.Step, name string, row []float64) {
	sd, _ := st.Lookup(name)
	st.Set(sd, st.Col(name), row)
}

// TestNodeErrors: graph-construction errors, the columns the geometry gives named with its
// sampler.
func TestNodeErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	m32 := func(b, c int) *gorgonia.Node {
		return gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(b, c))
	}
	mixed3 := candidates.Geometry{Sampler: "mixed", Layout: candidates.Diagonal, Extra: 3}
	popularity3 := candidates.Geometry{Sampler: "popularity", Layout: candidates.First, Extra: 3}
	cases := []struct {
		s    Settings
		g    candidates.Geometry
		dt   tensor.Dtype
		in   Inputs
		step *candidates.Step
		want string
	}{
		{Settings{}, inBatchG, tensor.Float32, Inputs{}, &candidates.Step{Geometry: inBatchG}, "Scores is nil"},
		{Settings{}, inBatchG, tensor.Float32, Inputs{Scores: m32(4, 4)}, nil, "step is nil"},
		{Settings{}, inBatchG, tensor.Float64, Inputs{Scores: m32(4, 4)}, &candidates.Step{Geometry: inBatchG}, "scores are float32"},
		{Settings{}, inBatchG, tensor.Float32, Inputs{Scores: m32(4, 5)}, &candidates.Step{Geometry: inBatchG},
			"sampler in_batch (layout diagonal) gives 4 score columns for 4 rows, the scores have 5"},
		{Settings{}, mixed3, tensor.Float32, Inputs{Scores: m32(4, 4)}, &candidates.Step{Geometry: mixed3}, "gives 7 score columns"},
		{Settings{}, popularity3, tensor.Float32, Inputs{Scores: m32(4, 7)}, &candidates.Step{Geometry: popularity3},
			"sampler popularity (layout first, 3 shared drawn columns) gives 4 score columns"},
		{Settings{}, inBatchG, tensor.Float32, Inputs{Scores: m32(4, 4)}, &candidates.Step{Geometry: popularity3}, "the step is of sampler popularity"},
		{Settings{Variant: VariantConstant}, inBatchG, tensor.Float32, Inputs{Scores: m32(1, 1)}, &candidates.Step{Geometry: inBatchG}, "at least one negative"},
		{Settings{}, inBatchG, tensor.Float32, Inputs{Scores: gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(4))},
			&candidates.Step{Geometry: inBatchG}, "R×C matrix"},
	}
	for _, tc := range cases {
		l := tcase{tc.s, tc.g}.newLoss(t, tc.dt)
		_, err := l.Node(tc.in, tc.step)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.s, err, tc.want)
		}
	}
	if _, err := New(Settings{}, inBatchG, tensor.Int); err == nil {
		t.Error("New accepted dtype int")
	}
}

// TestProbabilities: DrawProb inverts InclusionProb; closed forms; NaN on bad input.
func TestProbabilities(t *testing.T) {
	for _, q := range []float64{0, 1e-12, 1e-6, 0.01, 0.3, 1} {
		for _, n := range []int{1, 2, 64, 1024} {
			p := InclusionProb(q, n)
			if 1-p < 1e-3 && q < 1 {
				continue // (1-q)^n has underflowed: p no longer determines q
			}
			if back := DrawProb(p, n); math.Abs(back-q) > 1e-9*q+1e-15 {
				t.Errorf("DrawProb(InclusionProb(%g, %d)) = %g", q, n, back)
			}
		}
	}
	// 1-(1-0.5)^2 = 0.75; 1-(1-0.75)^(1/2) = 0.5.
	if p := InclusionProb(0.5, 2); p != 0.75 {
		t.Errorf("InclusionProb(0.5, 2) = %v, want 0.75", p)
	}
	if q := DrawProb(0.75, 2); math.Abs(q-0.5) > 1e-15 {
		t.Errorf("DrawProb(0.75, 2) = %v, want 0.5", q)
	}
	// (3·0.1 + 2/10)/5 = 0.1.
	if q := MixedDrawProb(0.1, 3, 2, 10); math.Abs(q-0.1) > 1e-15 {
		t.Errorf("MixedDrawProb = %v, want 0.1", q)
	}
	for _, v := range []float64{DrawProb(-0.1, 3), DrawProb(0.5, 0), InclusionProb(1.5, 3), InclusionProb(0.5, -1),
		MixedDrawProb(0.1, 0, 0, 10), MixedDrawProb(0.1, 1, 1, 0), MixedDrawProb(2, 1, 1, 3)} {
		if !math.IsNaN(v) {
			t.Errorf("invalid input gave %v, want NaN", v)
		}
	}
	if NegativeCount(65) != 64 {
		t.Error("NegativeCount(65) != 64")
	}
}

// TestStaleMaximum: when a column's correction as a negative is far larger
// than its correction as the row's positive (p̂ = 1e-300 against 0.5, divided
// by τ), the row maximum must be recomputed after the positive's logit is
// set; otherwise every exponential underflows.
func TestStaleMaximum(t *testing.T) {
	gen := newCaseGen(10, 9)
	l := mustNew(t, Settings{Variant: VariantLogQ, CorrectAt: CorrectAtScores}, tensor.Float64)
	p := gen.gen(l.Settings(), inBatchG, 6, false)
	for j := range pCol(p.st) {
		pCol(p.st)[j] = math.Log(1e-300)
	}
	for i := range pPos(p.st) {
		pPos(p.st)[i] = math.Log(0.5)
	}
	got, g := mustRun(t, l, p.st, p.b, p.c, true, p.S)
	want, gWant := refLoss(&p.s, p.st, p.S, p.b, p.c)
	checkClose(t, "stale maximum", got, want, g, gWant, 1e-9)
}

// TestLispMachine: the lisp machine's automatic differentiation (DoDiff)
// gives the reference gradient, accumulated into the scores' gradient.
func TestLispMachine(t *testing.T) {
	gen := newCaseGen(11, 9)
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		for _, im := range []Impl{ImplFused, ImplExpression} {
			l := mustNew(t, Settings{Variant: VariantRelative, RemoveAccidentalHits: true, Temperature: 0.4, Impl: im}, dt)
			p := gen.gen(l.Settings(), inBatchG, 5, false)
			S := p.S
			if dt == tensor.Float32 {
				S = round32(p.S)
			}
			g := gorgonia.NewGraph()
			scores := gorgonia.NewMatrix(g, dt, gorgonia.WithShape(p.b, p.c), gorgonia.WithName("s"),
				gorgonia.WithValue(dense(dt, S, p.b, p.c)))
			loss, err := l.Node(Inputs{Scores: scores}, p.st)
			if err != nil {
				t.Fatal(err)
			}
			m := gorgonia.NewLispMachine(g)
			if err := m.RunAll(); err != nil {
				t.Fatal(err)
			}
			grad, err := scores.Grad()
			if err != nil {
				t.Fatal(err)
			}
			want, gWant := refLoss(&p.s, p.st, S, p.b, p.c)
			tol := 1e-9
			if dt == tensor.Float32 {
				tol = 1e-4
			}
			checkClose(t, "lisp machine "+dt.String()+" "+string(im), values(loss.Value())[0], want, values(grad), gWant, tol)
			m.Close()
		}
	}
}

// TestStepChanges: a loss node reads the step it was built with at every run, as the trainer
// refills one step per batch: after a run on one problem and the step's contents replaced by
// another's, every expression (including logq_corrected's, whose correction depends on the
// step alone) and every fused kernel gives the value and gradient of a node built on the second,
// for the shared, drawn and padded geometries (whose padding rows change with the step).
func TestStepChanges(t *testing.T) {
	gen := newCaseGen(12, 9)
	for _, s := range []Settings{
		{Variant: VariantLogQ, Impl: ImplExpression, RemoveAccidentalHits: true},
		{Variant: VariantLogQCorrected},
		{Variant: VariantNCE, Impl: ImplExpression},
		{Variant: VariantLogQ, Impl: ImplExpression, RemoveAccidentalHits: true, Reduction: ReductionSum},
		{Variant: VariantLogQ, RemoveAccidentalHits: true},
	} {
		for _, geo := range []candidates.Geometry{inBatchG, uniformG, paddedG} {
			l := tcase{s, geo}.newLoss(t, tensor.Float64)
			t.Run(name(tcase{l.Settings(), geo}), func(t *testing.T) {
				first := gen.gen(l.Settings(), l.Geometry(), 6, false)
				second := gen.gen(l.Settings(), l.Geometry(), 6, false)
				st := *first.st
				h := newHarness(t, l, &st, first.b, first.c, true)
				if _, _, err := h.run(first.S); err != nil {
					t.Fatal(err)
				}
				st = *second.st
				got, g, err := h.run(second.S)
				if err != nil {
					t.Fatal(err)
				}
				want, gWant := mustRun(t, l, second.st, second.b, second.c, true, second.S)
				checkClose(t, "after a change of step", got, want, g, gWant, 1e-12)
			})
		}
	}
}

// TestOutputOwnership: the gradient a loss node's machine computes, fused or an expression, is
// the op's own tensor (internal/ops), valid until the next run: read after the next run, it
// holds that run's gradient in a normal build, and NaN in a checked build (the race detector's,
// or the opdebug tag), where the stale read shows; a copy taken before the next run keeps its
// values in both.
func TestOutputOwnership(t *testing.T) {
	gen := newCaseGen(13, 9)
	for _, im := range []Impl{ImplFused, ImplExpression} {
		l := mustNew(t, Settings{Variant: VariantLogQ, Impl: im}, tensor.Float64)
		first, second := gen.gen(l.Settings(), inBatchG, 5, false), gen.gen(l.Settings(), inBatchG, 5, false)
		h := newHarness(t, l, first.st, first.b, first.c, true)
		if _, _, err := h.run(first.S); err != nil {
			t.Fatal(err)
		}
		kept, copied := h.grad.Value().Data().([]float64), values(h.grad.Value())
		if _, g2, err := h.run(second.S); err != nil {
			t.Fatal(err)
		} else {
			for k, v := range kept {
				if stale := math.IsNaN(v); ops.Checked != stale || !ops.Checked && v != g2[k] {
					t.Fatalf("%s: the first run's gradient read after the second holds %v at %d (checked build %t; the second run's is %v)",
						im, v, k, ops.Checked, g2[k])
				}
			}
		}
		if _, g1, err := h.run(first.S); err != nil || !slices.Equal(copied, g1) {
			t.Errorf("%s: the copy of the first run's gradient %v, the same run again %v (%v)", im, copied, g1, err)
		}
	}
}
