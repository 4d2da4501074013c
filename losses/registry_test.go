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

// TestRegisterErrors: names are unique snake_case, never a built-in's, and a
// variant needs its expression and a struct pointer for options.
func TestRegisterErrors(t *testing.T) {
	expr := func(e *Expr) (*gorgonia.Node, error) { return softmaxExpr(e) }
	for _, tc := range []struct {
		name string
		v    Custom
		want string
	}{
		{"logq", Custom{Expr: expr}, "losses: variant logq is built in"},
		{"margin_softmax", Custom{Expr: expr}, "losses: variant margin_softmax is already registered"},
		{"Bad-Name", Custom{Expr: expr}, `losses: variant name "Bad-Name" must be non-empty lower-case snake_case`},
		{"", Custom{Expr: expr}, `losses: variant name "" must be non-empty`},
		{"no_expr", Custom{}, "losses: variant no_expr has no Expr"},
		{"bad_opts", Custom{Expr: expr, Options: func() any { return 3 }}, "losses: variant bad_opts: Options must return a pointer to a struct, got int"},
	} {
		if err := Register(tc.name, tc.v); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Register(%q) = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestOptionErrors: the options of a registered variant are decoded strictly;
// built-in variants take none; settings a registered variant cannot use are
// rejected with their key.
func TestOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		in   Settings
		want string
	}{
		{Settings{Variant: "margin_softmax", Options: map[string]any{"margin": 1.0, "beta": 2}},
			"options.beta: unknown option of variant margin_softmax (it has: margin)"},
		{Settings{Variant: "margin_softmax", Options: map[string]any{"margin": "x"}}, "options.margin: variant margin_softmax: incompatible types"},
		{Settings{Variant: "margin_softmax", Options: map[string]any{"margin": -1.0}}, "options.margin: must be finite and ≥ 0, got -1"},
		{Settings{Variant: "margin_softmax", CorrectAt: CorrectAtScores}, "correct_at: variant margin_softmax"},
		{Settings{Variant: VariantLogQ, Options: map[string]any{"alpha": 1.0}}, "options.alpha: variant logq has no options"},
		// A table of options named after no registered variant (a misspelt one) says so, with
		// the near name, rather than that the run's variant has no options.
		{Settings{Variant: VariantLogQ, Options: map[string]any{"margin_sotfmax": map[string]any{"margin": 1.0}}},
			"options.margin_sotfmax: a table of options is named after a registered variant, and no variant margin_sotfmax is registered (did you mean margin_softmax?)"},
		{Settings{Variant: "margin_softmax", Impl: ImplFused}, "impl: variant margin_softmax has no fused kernel"},
		{Settings{Variant: VariantLogQCorrected, Impl: ImplFused}, "impl: variant logq_corrected has no fused kernel"},
		{Settings{Variant: "margin_softmax", Form: FormDecoupled}, "form: only for constant"},
		{Settings{Variant: "margin_softmax", LATau: 2}, "la_tau: only for logit_adjusted"},
		{Settings{Variant: "margin_softmax", UncorrectedPositive: true}, "uncorrected_positive: only for"},
		{Settings{Impl: "fast"}, `impl: unknown "fast" (allowed: auto, expression, fused)`},
	} {
		s := tc.in
		if err := s.Resolve(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Resolve(%+v) = %v, want prefix %q", tc.in, err, tc.want)
		}
	}
	s := Settings{Variant: "margin_softmax", Options: map[string]any{"margin": 0.5}}
	l, err := New(s, inBatchG, tensor.Float32)
	if err != nil {
		t.Fatal(err)
	}
	if l.Fused() || l.Settings().CorrectAt != "" || l.opts == nil {
		t.Errorf("registered variant resolved to %+v, fused %v", l.Settings(), l.Fused())
	}
}

// registerForTest registers v under name for one test only.
func registerForTest(t *testing.T, name string, v Custom) {
	t.Helper()
	if err := Register(name, v); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		registry.Remove(Variant(name))
	})
}

// TestVariantTables: the variants whose own tables the options hold are the registered ones
// (gbce and psl are built-in variants with options) named by a table; an option whose value is no
// table, and a table named after no registered variant, are not.
func TestVariantTables(t *testing.T) {
	s := Settings{Options: map[string]any{
		"psl":  map[string]any{"surrogate": "tanh"},
		"gbce": map[string]any{"t": 0.5},
		"t":    0.5,
		"lgoq": map[string]any{"x": 1},
		"logq": map[string]any{"x": 1},
	}}
	if got, want := s.VariantTables(), []Variant{VariantGBCE, VariantPSL}; !slices.Equal(got, want) {
		t.Errorf("VariantTables = %v, want %v", got, want)
	}
}

// TestBrokenVariant: a registered expression that is not a scalar, fails or
// panics gives an error naming the variant, never a panic.
func TestBrokenVariant(t *testing.T) {
	for _, tc := range []struct {
		name string
		expr func(e *Expr) (*gorgonia.Node, error)
		want string
	}{
		{"not_scalar", func(e *Expr) (*gorgonia.Node, error) { return e.Logits(), nil },
			"losses: variant not_scalar gave a node of shape (2, 2), not a scalar"},
		{"shape_mismatch", func(e *Expr) (*gorgonia.Node, error) {
			return gorgonia.Sum(gorgonia.Must(gorgonia.Add(e.Scores, e.LogQ())))
		}, "losses: building variant shape_mismatch:"},
		{"row_as_columns", func(e *Expr) (*gorgonia.Node, error) {
			return gorgonia.Mean(AddCols(e.Logits(), e.AtPos(e.Logits())))
		}, "losses: building variant row_as_columns: Failed to infer shape. Op: addEach: losses: addEach of a (2, 2) matrix needs a (2, 2) vector, got (2, 1) (a B×1 operand, one value per row, is for AddRows and MulRows"},
		{"nil_node", func(e *Expr) (*gorgonia.Node, error) { return nil, nil },
			"losses: variant nil_node gave no node (nil) and no error"},
		{"no_options", func(e *Expr) (*gorgonia.Node, error) {
			_ = e.Options.(*struct{ A float64 })
			return nil, nil
		}, "losses: building variant no_options: interface conversion"},
	} {
		registerForTest(t, tc.name, Custom{Expr: tc.expr})
		l := mustNew(t, Settings{Variant: Variant(tc.name)}, tensor.Float64)
		g := gorgonia.NewGraph()
		scores := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("s"))
		_, err := l.Node(Inputs{Scores: scores}, &candidates.Step{Geometry: inBatchG})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want prefix %q", tc.name, err, tc.want)
		}
	}
}

// TestFamily: every built-in variant (in each form) is in one of the three families, by the
// package documentation's grouping, and a registered variant in the family it declares, or in
// one of its own.
func TestFamily(t *testing.T) {
	want := map[Variant]Family{
		VariantPlain: FamilySoftmax, VariantLogQ: FamilySoftmax, VariantLogQCorrected: FamilySoftmax, VariantFull: FamilySoftmax,
		VariantLogitAdjusted: FamilySoftmax, VariantConstant: FamilySoftmax, VariantImportance: FamilySoftmax,
		VariantRelative: FamilySoftmax, VariantTail: FamilySoftmax, VariantNCE: FamilyLogistic,
		VariantNegativeSampling: FamilyLogistic, VariantSampledLogistic: FamilyLogistic, VariantMSEGramian: FamilyRegression,
		VariantGBCE: FamilyLogistic, VariantPSL: FamilySoftmax, VariantDebiasedContrastive: FamilySoftmax,
		VariantLogIn: FamilySoftmax, VariantLogOut: FamilySoftmax,
	}
	for _, v := range variantNames {
		w, ok := want[v]
		if !ok {
			t.Errorf("built-in variant %s has no family in this test", v)
			continue
		}
		if got := (Settings{Variant: v}).Family(); got != w {
			t.Errorf("%s: family %q, want %q", v, got, w)
		}
	}
	for _, v := range []Variant{VariantConstant, VariantImportance, VariantRelative, VariantTail} {
		if got := (Settings{Variant: v, Form: FormDecoupled}).Family(); got != FamilyLogistic {
			t.Errorf("%s, decoupled form (Rawat et al. eq. 6): family %q, want logistic", v, got)
		}
	}
	if got := (Settings{}).Family(); got != FamilySoftmax {
		t.Errorf("default variant: family %q", got)
	}
	expr := func(e *Expr) (*gorgonia.Node, error) { return softmaxExpr(e) }
	registerForTest(t, "family_declared", Custom{Expr: expr, Family: FamilySoftmax})
	registerForTest(t, "family_own", Custom{Expr: expr})
	if got := (Settings{Variant: "family_declared"}).Family(); got != FamilySoftmax {
		t.Errorf("registered with Family softmax: %q", got)
	}
	if got := (Settings{Variant: "family_own"}).Family(); got != "family_own" {
		t.Errorf("registered without a Family: %q, want its own name", got)
	}
}

// TestRegisteredReadsCheckedLogQ: a registered variant that reads the sampler's log q gets the
// check the built-in variants' reads get: a column's log q of −Inf (q = 0 declared for an item
// drawn) is an error naming the side input and the column, not a NaN loss.
func TestRegisteredReadsCheckedLogQ(t *testing.T) {
	registerForTest(t, "reads_logq_test", Custom{Expr: func(e *Expr) (*gorgonia.Node, error) {
		return gorgonia.Mean(AddCols(e.Logits(), e.LogQ()))
	}})
	l := mustNew(t, Settings{Variant: "reads_logq_test"}, tensor.Float64)
	p := newCaseGen(5, 9).gen(l.Settings(), l.Geometry(), 4, false)
	if _, _, err := newHarness(t, l, p.st, p.b, p.c, true).run(p.S); err != nil {
		t.Fatalf("valid log q: %v", err)
	}
	p.st.Col(candidates.LogQ)[2] = math.Inf(-1)
	_, _, err := newHarness(t, l, p.st, p.b, p.c, true).run(p.S)
	if want := "losses: side input log_q of column 2 = -Inf is not a valid log-probability"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}

// TestRegisteredLogQCorrection: a registered variant with Custom.LogQ that builds the softmax
// over Expr.LogQCorrection's logits is the built-in logq, at every logq_probability form and
// with uncorrected_positive, to float64 rounding.
func TestRegisteredLogQCorrection(t *testing.T) {
	registerForTest(t, "logq_via_method_test", Custom{LogQ: true, Expr: func(e *Expr) (*gorgonia.Node, error) {
		f := e.Logits()
		z, zPos := e.LogQCorrection(f, e.AtPos(f))
		return e.Reduce(SoftmaxLoss(zPos, AddEach(z, e.NegLog()))), nil
	}})
	for _, s := range []Settings{
		{LogQProbability: LogQProbabilityExpectedCount},
		{LogQProbability: LogQProbabilityInclusion},
		{LogQProbability: LogQProbabilityExpectedCount, UncorrectedPositive: true},
		{LogQProbability: LogQProbabilityInclusion, CorrectAt: CorrectAtScores},
	} {
		t.Run(fmt.Sprintf("%s,uncorrected=%v", s.LogQProbability, s.UncorrectedPositive), func(t *testing.T) {
			mine, builtin := s, s
			mine.Variant, builtin.Variant = "logq_via_method_test", VariantLogQ
			lm, lb := mustNew(t, mine, tensor.Float64), mustNew(t, builtin, tensor.Float64)
			p := newCaseGen(7, 11).gen(lb.Settings(), lb.Geometry(), 4, false)
			a, _, errA := newHarness(t, lm, p.st, p.b, p.c, true).run(p.S)
			b, _, errB := newHarness(t, lb, p.st, p.b, p.c, true).run(p.S)
			if errA != nil || errB != nil || math.Abs(a-b) > 1e-12*math.Max(1, math.Abs(b)) {
				t.Errorf("registered %v (%v), built-in logq %v (%v)", a, errA, b, errB)
			}
		})
	}
}
