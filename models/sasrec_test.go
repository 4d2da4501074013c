package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/tape"
	"github.com/samplingbias/workbench/losses"
)

// seqHarness is a training graph of the encoder for the tests and the benchmark: the loss
// Σ out ⊙ C for fixed coefficients C (an input), and its gradients w.r.t. every dense
// parameter and the input embeddings x.
type seqHarness[T float] struct {
	e     *sasrec
	n     *sasrecNodes[T]
	loss  *G.Node
	coef  []T
	grads G.Nodes // of n.params, then of n.x
	vm    G.VM
	rng   *rand.Rand // the dropout masks' source
}

func newSeqHarness[T float](t testing.TB, e *sasrec, rows, length int, impl towerImpl, train bool, seed uint64) *seqHarness[T] {
	t.Helper()
	g := G.NewGraph()
	n, err := sasrecFwd[T](e, g, rows, length, impl, train)
	if err != nil {
		t.Fatal(err)
	}
	h := &seqHarness[T]{e: e, n: n, rng: rand.New(rand.NewPCG(seed, 1))}
	var c *G.Node
	c, h.coef = (&seqBuilder[T]{n: n, g: g, dt: n.x.Dtype()}).input("coef", rows*length, e.d)
	crng := rand.New(rand.NewPCG(seed, 2))
	for i := range h.coef {
		h.coef[i] = T(crng.NormFloat64())
	}
	h.loss = G.Must(G.Sum(losses.RowDot(n.out, c)))
	h.grads, h.vm, _ = gradMachines(t, h.loss, append(append(G.Nodes(nil), n.params...), n.x))
	return h
}

// run binds w, draws the dropout masks and runs forward and backward; it returns the loss.
func (h *seqHarness[T]) run(t testing.TB, w *Window) float64 {
	t.Helper()
	if err := w.check(h.e.items.shape[0], h.e.s.MaxLength); err != nil {
		t.Fatal(err)
	}
	h.n.bind(w)
	h.n.fillDropout(h.rng)
	defer h.vm.Reset()
	if err := h.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return float64(h.loss.Value().Data().(T))
}

// masks returns the dropout masks of the last run in float64 (nil without dropout).
func (h *seqHarness[T]) masks() refMasks {
	if len(h.n.drop) == 0 {
		return nil
	}
	m := make(refMasks, len(h.n.drop))
	for i, dm := range h.n.drop {
		for _, v := range dm.data {
			m[i] = append(m[i], float64(v))
		}
	}
	return m
}

// gradients returns the gradient of the last run's loss w.r.t. every parameter (the item table's
// from x's, scattered), by parameter.
func (h *seqHarness[T]) gradients(w *Window) map[*param][]float64 {
	out := map[*param][]float64{}
	for i, p := range h.n.of {
		for _, v := range data[T](h.grads[i].Value()) {
			out[p] = append(out[p], float64(v))
		}
	}
	rg := newRowGrad[T](h.e.items.shape[0], h.e.d)
	h.n.scatter(w, data[T](h.grads[len(h.grads)-1].Value()), rg)
	g := make([]float64, h.e.items.size())
	for k, r := range rg.rows {
		for j, v := range rg.grad[k*h.e.d : (k+1)*h.e.d] {
			g[int(r)*h.e.d+j] = float64(v)
		}
	}
	out[h.e.items] = g
	return out
}

// testWindow is a window of 4 histories of length 5 over 9 items: a full one, one of 3 items, an
// empty one and one of a single item, with a repeated item.
func testWindow() *Window {
	P := Padding
	return &Window{Rows: 4, Len: 5, Items: []int32{
		3, 1, 4, 1, 5,
		P, P, 2, 6, 8,
		P, P, P, P, P,
		P, P, P, P, 7,
	}}
}

// sasrecForm is a form of the encoder's input scale and layer normalisations: the settings, and
// the values the reference (refSASRec) takes for them at width 4.
type sasrecForm struct {
	name  string
	scale EmbeddingScale
	eps   float64 // 0: unset
	ref   refForm
}

// kangForm is Kang & McAuley's code's form, the keys unset: the scale √4 = 2 and ε = 1e-8
// (kang205/SASRec modules.py, embedding with scale=True and normalize); otherForm gSASRec's and
// Khrylchenko et al.'s: no scale and PyTorch's ε = 1e-5.
var (
	kangForm  = sasrecForm{"kang", "", 0, refForm{scale: 2, eps: 1e-8}}
	otherForm = sasrecForm{"gsasrec", ScaleNone, 1e-5, refForm{scale: 1, eps: 1e-5}}
)

// settings returns s with the scale and ε of the form f.
func (f sasrecForm) settings(s SequenceSettings) SequenceSettings {
	s.EmbeddingScale = f.scale
	if f.eps != 0 {
		s.LayerNormEpsilon = &f.eps
	}
	return s
}

// testSASRec is a float64 encoder of width 4 over 9 items with max_length 7, of the form f.
func testSASRec(t testing.TB, heads int, dropout float64, separate bool, f sasrecForm) *sasrec {
	t.Helper()
	s := f.settings(SequenceSettings{Encoder: EncoderSASRec, MaxLength: 7, Heads: heads, Dropout: &dropout, SeparateOutput: separate})
	e, err := newSASRec(s, 4, 9, 0.5, tensor.Float64, 11)
	if err != nil {
		t.Fatal(err)
	}
	// Non-trivial normalisation parameters, so that a γ or β used in the wrong place shows.
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range e.norms() {
		fillParam(n.gamma, func() float64 { return 1 + 0.3*rng.NormFloat64() })
		fillParam(n.beta, func() float64 { return 0.2 * rng.NormFloat64() })
	}
	for _, b := range e.blocks {
		for _, l := range []layer{b.query, b.key, b.val, b.ffn1, b.ffn2} {
			fillParam(l.b, func() float64 { return 0.1 * rng.NormFloat64() })
		}
	}
	return e
}

// sasrecCase is one encoder of the tests.
type sasrecCase struct {
	name    string
	heads   int
	dropout float64
	train   bool
	form    sasrecForm
}

var sasrecCases = []sasrecCase{
	{"one-head-inference", 1, 0.3, false, kangForm},
	{"one-head-dropout", 1, 0.3, true, kangForm},
	{"two-heads-inference", 2, 0.3, false, kangForm},
	{"two-heads-dropout", 2, 0.4, true, kangForm},
	{"no-dropout-training", 2, 0, true, kangForm},
	{"gsasrec-form-inference", 1, 0.3, false, otherForm},
	{"gsasrec-form-dropout", 2, 0.4, true, otherForm},
}

var impls = []struct {
	name string
	impl towerImpl
}{{"fused", towerFused}, {"expression", towerExpression}}

// TestSASRecMatchesReference checks the encoder's graph, fused and written as an expression, in
// float64, against refSASRec, the plain-Go reference written from Kang & McAuley's equations:
// the hidden states at every position (with the training graph's dropout masks, or none at
// inference), and the gradient of the loss Σ out ⊙ C w.r.t. every parameter (each element of
// every dense parameter and of the item rows the window reads) against central finite
// differences of the reference's loss.
func TestSASRecMatchesReference(t *testing.T) {
	w := testWindow()
	for _, c := range sasrecCases {
		for _, im := range impls {
			t.Run(c.name+"/"+im.name, func(t *testing.T) {
				e := testSASRec(t, c.heads, c.dropout, false, c.form)
				// the outputs, by a forward-only machine on the same graph definition
				h := newSeqHarness[float64](t, e, w.Rows, w.Len, im.impl, c.train, 3)
				loss := h.run(t, w)
				m := h.masks()
				if c.train != (m != nil) && c.dropout > 0 {
					t.Fatalf("%d dropout masks in a graph with train=%t", len(m), c.train)
				}
				want, wantLoss := refSASRec(e, w, m, h.coef, c.form.ref)
				if math.Abs(loss-wantLoss) > 1e-12*(1+math.Abs(wantLoss)) {
					t.Errorf("loss %.15g, reference %.15g", loss, wantLoss)
				}
				got := forwardOnly(t, e, w, im.impl, c.train, m)
				for i := range want {
					if math.Abs(got[i]-want[i]) > 1e-12 {
						t.Fatalf("output %d (row %d, position %d): %.15g, reference %.15g", i, i/e.d/w.Len, i/e.d%w.Len, got[i], want[i])
					}
				}
				grads := h.gradients(w)
				checked := 0
				for _, p := range e.params() {
					an, ok := grads[p]
					if !ok {
						t.Fatalf("no gradient of %s", p.name)
					}
					x := values[float64](p)
					for i := range x {
						fd := centralDifference(x, i, func() float64 {
							_, l := refSASRec(e, w, m, h.coef, c.form.ref)
							return l
						})
						if !agrees(an[i], fd) {
							t.Errorf("%s[%d]: gradient %.10g, finite difference %.10g", p.name, i, an[i], fd)
						}
						checked++
					}
				}
				if checked < 300 {
					t.Fatalf("checked %d parameter values", checked)
				}
			})
		}
	}
}

// TestSASRecMatchesAuthorsCode checks the encoder at inference against Kang & McAuley's code
// itself rather than against a reference written here: the expected hidden states were computed
// by a float64 transcription of kang205/SASRec model.py and modules.py (is_training false;
// embedding with scale and zero_pad, the positional rows tf.range(maxlen), multihead_attention's
// key and query masks of −2³² + 1, feedforward, normalize with ε = 1e-8), fed the parameters
// below and the histories left-padded to max_length as that code pads them. The parameters are
// x_k = 0.6·sin(0.37k + 0.1) over params() in order (k counting every value; each γ is 1 + x_k),
// d = 4, 2 heads, 2 blocks, max_length 5 and windows of 3 positions, so that the positional rows
// are read aligned to the window's end. Kang's code leaves the last normalisation's β at a padded
// position; here it is zero (docs/encoders.md).
func TestSASRecMatchesAuthorsCode(t *testing.T) {
	zero := 0.0
	P := Padding
	w := &Window{Rows: 3, Len: 3, Items: []int32{2, 0, 5, P, 4, 4, P, P, P}}
	want := []struct {
		row, pos int
		out      [4]float64
	}{
		{0, 0, [4]float64{2.5755773012072312, -1.7590918488134499, -1.2579594398621681, -0.57089870228996176}},
		{0, 1, [4]float64{-2.7133329395775974, 0.12993097055019281, 0.41892539084506897, 0.48053861543763443}},
		{0, 2, [4]float64{2.7023864368849617, -1.5415356386546644, -0.93478221430426844, -1.1161456679798418}},
		{1, 1, [4]float64{-2.6347875916039833, -0.15918708681546379, 0.50340322729805598, 0.57555927503518334}},
		{1, 2, [4]float64{-2.6443756198222115, -0.13052451283092381, 0.49895395244510554, 0.56410739510726648}},
	}
	e, err := newSASRec(SequenceSettings{Encoder: EncoderSASRec, MaxLength: 5, Blocks: 2, Heads: 2, Dropout: &zero}, 4, 6, 0.1, tensor.Float64, 1)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, p := range e.params() {
		gain := strings.HasSuffix(p.name, ".gamma")
		fillParam(p, func() float64 {
			x := 0.6 * math.Sin(0.37*float64(k)+0.1)
			k++
			if gain {
				x++
			}
			return x
		})
	}
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			got := forwardOnly(t, e, w, im.impl, false, nil)
			item := map[int]bool{}
			for _, c := range want {
				i := c.row*w.Len + c.pos
				item[i] = true
				for j, v := range c.out {
					if math.Abs(got[i*4+j]-v) > 1e-12 {
						t.Errorf("row %d, position %d [%d]: %.17g, Kang & McAuley's code %.17g", c.row, c.pos, j, got[i*4+j], v)
					}
				}
			}
			for i := range w.Rows * w.Len {
				if !item[i] && slices.ContainsFunc(got[i*4:(i+1)*4], func(v float64) bool { return v != 0 }) {
					t.Errorf("padded position %d: output %v, not zero", i, got[i*4:(i+1)*4])
				}
			}
		})
	}
}

// TestSASRecEmbeddingScale checks embedding_scale "none" against its definition: the encoder of
// item table E without the scale gives, bit for bit, the hidden states of the encoder with Kang &
// McAuley's scale √d = 2 (d = 4) and the table E/2 (halving and doubling are exact), in both
// implementations; and the scaled encoder of the table E itself differs, so that the check can
// fail.
func TestSASRecEmbeddingScale(t *testing.T) {
	w := testWindow()
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			none := testSASRec(t, 2, 0, false, sasrecForm{name: "none", scale: ScaleNone})
			scaled := testSASRec(t, 2, 0, false, kangForm)
			same := forwardOnly(t, scaled, w, im.impl, false, nil)
			for i, v := range values[float64](scaled.items) {
				values[float64](scaled.items)[i] = v / 2
			}
			got, want := forwardOnly(t, none, w, im.impl, false, nil), forwardOnly(t, scaled, w, im.impl, false, nil)
			if !slices.Equal(got, want) {
				t.Errorf("scale none:\n%v\nscale √d of the table halved:\n%v", got, want)
			}
			if slices.Equal(got, same) {
				t.Error("scale none gives the scaled encoder's hidden states of the same table")
			}
		})
	}
}

// forwardOnly runs the encoder's graph forward only (with the given dropout masks in a training
// graph) on w and returns its output.
func forwardOnly(t *testing.T, e *sasrec, w *Window, impl towerImpl, train bool, m refMasks) []float64 {
	t.Helper()
	g := G.NewGraph()
	n, err := sasrecFwd[float64](e, g, w.Rows, w.Len, impl, train)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := tape.Machine(g, n.out)
	if err != nil {
		t.Fatal(err)
	}
	n.bind(w)
	for i, dm := range n.drop {
		copy(dm.data, m[i])
	}
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return append([]float64(nil), data[float64](n.out.Value())...)
}

// TestSASRecFusedMatchesExpression checks the fused encoder against the expression in float32
// (the production dtype) on a larger window with two heads and dropout, in Kang & McAuley's
// code's form and in gSASRec's (no input scale, ε = 1e-5): the loss and every gradient agree to
// float32 rounding (1e-4 of each parameter's largest gradient, plus 1e-6 of the largest of all:
// the keys' bias has a gradient of zero, as adding a constant to every score of a row does not
// change its softmax, and both give rounding errors there).
func TestSASRecFusedMatchesExpression(t *testing.T) {
	for _, f := range []sasrecForm{kangForm, otherForm} {
		t.Run(f.name, func(t *testing.T) {
			p := 0.2
			e, err := newSASRec(f.settings(SequenceSettings{Encoder: EncoderSASRec, MaxLength: 40, Heads: 2, Dropout: &p}), 16, 50, 0.3, tensor.Float32, 4)
			if err != nil {
				t.Fatal(err)
			}
			fusedMatchesExpression(t, e)
		})
	}
}

// fusedMatchesExpression compares the fused training graph of e with the expression's, as
// TestSASRecFusedMatchesExpression says.
func fusedMatchesExpression(t *testing.T, e *sasrec) {
	w := randomWindow(6, 33, 50, 9)
	var grads [2]map[*param][]float64
	var loss [2]float64
	for k, im := range impls {
		h := newSeqHarness[float32](t, e, w.Rows, w.Len, im.impl, true, 3)
		loss[k] = h.run(t, w)
		grads[k] = h.gradients(w)
	}
	if math.Abs(loss[0]-loss[1]) > 1e-4*(1+math.Abs(loss[1])) {
		t.Errorf("loss: fused %v, expression %v", loss[0], loss[1])
	}
	largest := func(x []float64) float64 {
		var m float64
		for _, v := range x {
			m = math.Max(m, math.Abs(v))
		}
		return m
	}
	var all float64
	for _, g := range grads[1] {
		all = math.Max(all, largest(g))
	}
	for _, p := range e.params() {
		f, x := grads[0][p], grads[1][p]
		scale := largest(x)
		for i := range x {
			if math.Abs(f[i]-x[i]) > 1e-4*scale+1e-6*all {
				t.Fatalf("%s[%d]: fused %v, expression %v (largest %v, of all %v)", p.name, i, f[i], x[i], scale, all)
			}
		}
	}
}

// randomWindow is a window of rows histories of length L over items items, of random lengths
// from 0 to L (one full, one empty).
func randomWindow(rows, L, items int, seed uint64) *Window {
	rng := rand.New(rand.NewPCG(seed, 3))
	w := &Window{Rows: rows, Len: L, Items: make([]int32, rows*L)}
	for r := range rows {
		n := rng.IntN(L + 1)
		switch r {
		case 0:
			n = L
		case 1:
			n = 0
		}
		for j := range L {
			w.Items[r*L+j] = Padding
			if j >= L-n {
				w.Items[r*L+j] = int32(rng.IntN(items))
			}
		}
	}
	return w
}

// TestSASRecCausality checks that changing the item at position t changes no output at a
// position before t, and changes the outputs from t on (so that the check could fail), for
// every t of a full window and in both implementations.
func TestSASRecCausality(t *testing.T) {
	e := testSASRec(t, 2, 0, false, kangForm)
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			base := testWindow()
			ref := forwardOnly(t, e, base, im.impl, false, nil)
			d := e.d
			for pos := range base.Len {
				w := &Window{Rows: base.Rows, Len: base.Len, Items: append([]int32(nil), base.Items...)}
				w.Items[pos] = (w.Items[pos] + 3) % 9 // row 0 is full: position pos holds an item
				out := forwardOnly(t, e, w, im.impl, false, nil)
				for j := range base.Len {
					changed := false
					for c := range d {
						if out[j*d+c] != ref[j*d+c] {
							changed = true
						}
					}
					if j < pos && changed {
						t.Errorf("changing position %d changed the output at position %d", pos, j)
					}
					if j >= pos && !changed {
						t.Errorf("changing position %d left the output at position %d unchanged", pos, j)
					}
				}
				for i := base.Len * d; i < len(out); i++ {
					if out[i] != ref[i] {
						t.Fatalf("changing row 0 changed output %d of another row", i)
					}
				}
			}
		})
	}
}

// TestSASRecPadding checks that padding a window further on the left (the same histories in a
// window of length 7 instead of 5) changes no output at the histories' positions, bit for bit,
// and that the output at every padded position is zero.
func TestSASRecPadding(t *testing.T) {
	e := testSASRec(t, 2, 0, false, kangForm)
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			short := testWindow()
			const extra = 2
			long := &Window{Rows: short.Rows, Len: short.Len + extra}
			for r := range short.Rows {
				long.Items = append(long.Items, Padding, Padding)
				long.Items = append(long.Items, short.Items[r*short.Len:(r+1)*short.Len]...)
			}
			a := forwardOnly(t, e, short, im.impl, false, nil)
			b := forwardOnly(t, e, long, im.impl, false, nil)
			d := e.d
			for r := range short.Rows {
				for j := range long.Len {
					got := b[(r*long.Len+j)*d : (r*long.Len+j+1)*d]
					if long.Items[r*long.Len+j] == Padding {
						for _, v := range got {
							if v != 0 {
								t.Fatalf("row %d, padded position %d: output %v", r, j, got)
							}
						}
						continue
					}
					want := a[(r*short.Len+j-extra)*d : (r*short.Len+j-extra+1)*d]
					for c := range d {
						if got[c] != want[c] {
							t.Fatalf("row %d, position %d: %v padded further, %v", r, j-extra, got, want)
						}
					}
				}
			}
		})
	}
}

// TestSASRecInferenceDropsNothing checks that the inference graph (encode) ignores the dropout
// rate: an encoder with dropout 0.5 encodes as the same encoder with dropout 0, and its training
// graph, which drops, differs.
func TestSASRecInferenceDropsNothing(t *testing.T) {
	w := testWindow()
	e := testSASRec(t, 1, 0.5, false, kangForm)
	a, err := e.encode(w)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	e.s.Dropout = &zero
	b, err := e.encode(w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("output %d: %v with dropout 0.5, %v with 0", i, a[i], b[i])
		}
	}
	half := 0.5
	e.s.Dropout = &half
	h := newSeqHarness[float64](t, e, w.Rows, w.Len, towerFused, true, 3)
	h.run(t, w)
	train, _ := refSASRec(e, w, h.masks(), nil, kangForm.ref)
	same := true
	for i := range a {
		if math.Abs(train[i]-float64(a[i])) > 1e-6 {
			same = false
		}
	}
	if same {
		t.Error("the training graph's output with dropout 0.5 equals the inference output")
	}
}

// TestDropoutMasks checks the dropout masks: reproducible from the seed, different for another
// seed, every value 0 or the kept units' scale (1/(1 − p), p rounded to 2⁻¹⁶, within 1e-5 of
// 1/(1 − p) itself), and the fraction dropped within 5 standard deviations of p.
func TestDropoutMasks(t *testing.T) {
	for _, p := range []float64{0.2, 0.5} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			const n = 100_001
			a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
			fillDropout(a, p, rand.New(rand.NewPCG(7, 1)))
			fillDropout(b, p, rand.New(rand.NewPCG(7, 1)))
			fillDropout(c, p, rand.New(rand.NewPCG(8, 1)))
			dropped, differ := 0, 0
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("unit %d: %v and %v from the same seed", i, a[i], b[i])
				}
				if a[i] != c[i] {
					differ++
				}
				_, scale := dropRate(p)
				switch a[i] {
				case 0:
					dropped++
				case float32(scale):
				default:
					t.Fatalf("unit %d: %v", i, a[i])
				}
			}
			if _, scale := dropRate(p); math.Abs(scale-1/(1-p)) > 1e-5 {
				t.Errorf("scale %v for rate %v", scale, p)
			}
			if differ == 0 {
				t.Error("another seed gave the same mask")
			}
			sd := math.Sqrt(n * p * (1 - p))
			if math.Abs(float64(dropped)-n*p) > 5*sd {
				t.Errorf("dropped %d of %d, expected %.0f ± %.0f", dropped, n, n*p, sd)
			}
		})
	}
}

// TestSASRecDropoutMasksReproducible checks that a training graph's masks (the embedding's, the
// attention weights' in the causal regions, the feed-forward layers') are the same for two
// sources of one seed and differ for another seed.
func TestSASRecDropoutMasksReproducible(t *testing.T) {
	w := testWindow()
	e := testSASRec(t, 2, 0.3, false, kangForm)
	masks := func(seed uint64) refMasks {
		h := newSeqHarness[float64](t, e, w.Rows, w.Len, towerFused, true, seed)
		h.run(t, w)
		return h.masks()
	}
	a, b, c := masks(4), masks(4), masks(5)
	if len(a) != 1+3*len(e.blocks) {
		t.Fatalf("%d masks for %d blocks", len(a), len(e.blocks))
	}
	for k := range a {
		same, other := true, true
		for i := range a[k] {
			same = same && a[k][i] == b[k][i]
			other = other && a[k][i] == c[k][i]
		}
		if !same {
			t.Errorf("mask %d differs between two sources of one seed", k)
		}
		if other {
			t.Errorf("mask %d is the same for another seed", k)
		}
	}
}

// TestSASRecOutputTable checks that the output item table is the input one by default (Kang &
// McAuley's shared item embedding) and a table of its own, among the parameters, with
// separate_output.
func TestSASRecOutputTable(t *testing.T) {
	tied, separate := testSASRec(t, 1, 0, false, kangForm), testSASRec(t, 1, 0, true, kangForm)
	if tied.out != tied.items || len(tied.tables()) != 1 {
		t.Error("the tied output table is not the input table")
	}
	if separate.out == separate.items || separate.out.name != "sasrec.output" || len(separate.tables()) != 2 {
		t.Errorf("separate output table %q", separate.out.name)
	}
	for _, e := range []*sasrec{tied, separate} {
		names := map[string]bool{}
		for _, p := range e.params() {
			if names[p.name] {
				t.Errorf("parameter %s twice", p.name)
			}
			names[p.name] = true
		}
		if want := len(e.tables()) + 1 + 14*len(e.blocks) + 2; len(names) != want {
			t.Errorf("%d parameters, want %d", len(names), want)
		}
	}
}
