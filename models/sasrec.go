package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/tape"
	"github.com/samplingbias/workbench/losses"
)

// sasrec is Kang & McAuley's self-attentive sequential encoder (ICDM 2018, section III; the
// form of their code, kang205/SASRec model.py and modules.py; docs/encoders.md). For a window
// of histories (Window: sequences padded on the left to L ≤ MaxLength positions, keep_t = 1 at
// an item, 0 at padding), with width d and positional rows aligned to the window's end
// (position t of L reads row MaxLength − L + t, so that a sequence padded to MaxLength reads
// row t as in the paper, and padding on the left moves no item's row):
//
//	H⁰ = keep ⊙ Dropout(c·E[s_t] + P[MaxLength − L + t])                       (section III-A)
//	for each block:
//	    Q̃ = LayerNorm₁(H)
//	    A  = causal attention of queries Q̃W_Q + b_Q, keys HW_K + b_K, values HW_V + b_V
//	         (per head: softmax(QKᵀ/√d_h) over the keys j ≤ i that are items, Dropout on the
//	          weights; a padded query attends to nothing)                       (section III-B)
//	    S  = A + Q̃
//	    F̃  = LayerNorm₂(S)
//	    H  = keep ⊙ (Dropout(Dropout(ReLU(F̃W₁ + b₁))·W₂ + b₂) + F̃)          (section III-B)
//	out = keep ⊙ LayerNorm(H)
//
// The residual connections add the normalised input (Q̃, F̃) and the keys and values read the
// block's input H unnormalised, as the authors' code does (the paper writes the residual as
// x + Dropout(g(LayerNorm(x)))); the item embedding is scaled by c = √d unless EmbeddingScale
// is ScaleNone (c = 1, the paper's eq. (1), gSASRec's code), the projections have biases and the
// last block's output is normalised, as there (the paper's eqs. (1) and (3) and its prediction
// layer have none of these); the attention has no output projection, in the paper as in the
// code. Every LayerNorm has ε = 1e-8, the code's, unless LayerNormEpsilon sets another. The
// output at a padded position is zero (the authors' code leaves the final layer normalisation's
// β there, which no loss reads).
//
// The parameters live in the encoder, outside any graph, as a Model's do: the input item table
// (items), the output item table (out, the same array unless SeparateOutput), the positional
// table (MaxLength × d), each block's layers and normalisations, and the final normalisation.
type sasrec struct {
	s      SequenceSettings // resolved
	d      int
	items  *param // input item embeddings E, items × d
	out    *param // output item embeddings: items unless s.SeparateOutput
	pos    *param // positional embeddings P, MaxLength × d
	blocks []sasrecBlock
	norm   layerNorm // the last layer normalisation
}

// sasrecBlock holds one self-attention block's parameters.
type sasrecBlock struct {
	ln1, ln2        layerNorm
	query, key, val layer // d × d projections
	ffn1, ffn2      layer // the point-wise feed-forward layers, d × d each
}

// layerNorm holds a layer normalisation's gain γ and bias β (Kang & McAuley's α and β).
type layerNorm struct{ gamma, beta *param }

// newSASRec builds the encoder of width d over items items with seeded initialisation: the
// item and positional tables from N(0, initStd²) (a Model's tables'), the layers'
// weights Glorot-uniform and biases zero, the normalisations' γ one and β zero.
func newSASRec(s SequenceSettings, d, items int, initStd float64, dt tensor.Dtype, seed int64) (*sasrec, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	switch {
	case s.Encoder != EncoderSASRec:
		return nil, fmt.Errorf("models: encoder %q is not %q", s.Encoder, EncoderSASRec)
	case d < 1 || items < 1:
		return nil, fmt.Errorf("models: a sasrec encoder of width %d over %d items", d, items)
	case dt != tensor.Float32 && dt != tensor.Float64:
		return nil, fmt.Errorf("models: dtype %v not supported (float32 or float64)", dt)
	}
	if err := s.checkWidth(d); err != nil {
		return nil, err
	}
	e := &sasrec{s: s, d: d}
	p := func(name string, shape ...int) *param { return newParamOf(dt, "sasrec."+name, shape...) }
	e.items = p("items", items, d)
	e.out = e.items
	if s.SeparateOutput {
		e.out = p("output", items, d)
	}
	e.pos = p("position", s.MaxLength, d)
	ln := func(name string) layerNorm { return layerNorm{p(name+".gamma", d), p(name+".beta", d)} }
	dense := func(name string) layer { return layer{w: p(name+".w", d, d), b: p(name+".b", d), in: d, out: d} }
	for i := range s.Blocks {
		n := func(s string) string { return fmt.Sprintf("%d.%s", i, s) }
		e.blocks = append(e.blocks, sasrecBlock{
			ln1: ln(n("ln1")), query: dense(n("query")), key: dense(n("key")), val: dense(n("value")),
			ln2: ln(n("ln2")), ffn1: dense(n("ffn1")), ffn2: dense(n("ffn2")),
		})
	}
	e.norm = ln("ln")
	rng := rand.New(rand.NewPCG(uint64(seed), 0x73617372656300)) // "sasrec"
	for _, t := range e.tables() {
		fillParam(t, func() float64 { return initStd * rng.NormFloat64() })
	}
	fillParam(e.pos, func() float64 { return initStd * rng.NormFloat64() })
	for _, b := range e.blocks {
		for _, l := range []layer{b.query, b.key, b.val, b.ffn1, b.ffn2} {
			glorot(l, rng)
		}
	}
	for _, n := range e.norms() {
		fillParam(n.gamma, func() float64 { return 1 })
	}
	return e, nil
}

// tables lists the item tables, updated row by row: the input table, then the output table
// when it is separate.
func (e *sasrec) tables() []*param {
	if e.out != e.items {
		return []*param{e.items, e.out}
	}
	return []*param{e.items}
}

// norms lists the layer normalisations in graph order.
func (e *sasrec) norms() []layerNorm {
	var ns []layerNorm
	for _, b := range e.blocks {
		ns = append(ns, b.ln1, b.ln2)
	}
	return append(ns, e.norm)
}

// params lists every parameter: the tables, then the dense parameters in the order the graph
// binds them (sasrecNodes.of): the positional table, each block's, the last normalisation's.
func (e *sasrec) params() []*param {
	ps := append(e.tables(), e.pos)
	for _, b := range e.blocks {
		ps = append(ps, b.ln1.gamma, b.ln1.beta, b.query.w, b.query.b, b.key.w, b.key.b, b.val.w, b.val.b,
			b.ln2.gamma, b.ln2.beta, b.ffn1.w, b.ffn1.b, b.ffn2.w, b.ffn2.b)
	}
	return append(ps, e.norm.gamma, e.norm.beta)
}

// dense lists the parameters other than the item tables, in params' order.
func (e *sasrec) dense() []*param { return e.params()[len(e.tables()):] }

// dropout is the rate of the encoder's dropout layers.
func (e *sasrec) dropout() float64 { return *e.s.Dropout }

// sasrecNodes are the encoder's nodes in one graph of rows histories of length positions, and
// the arrays its inputs are bound to (bind and fillDropout fill them before every run).
type sasrecNodes[T float] struct {
	e            *sasrec
	rows, length int
	// out (rows·length × d) is the hidden state at every position, zero at padded ones.
	out *G.Node
	// x (rows·length × d) holds the input embeddings E[s_t] of the window's items (zero rows at
	// padding); its gradient goes to the rows of the item table.
	x     *G.Node
	xData []T
	// keep (rows·length × 1) is 1 at an item and 0 at padding.
	keep     *G.Node
	keepData []T
	// drop are the dropout masks of a training graph, in the order fillDropout fills them.
	drop []dropMask[T]
	// params are the nodes bound to the dense parameters (every one but the item tables), of
	// their parameters.
	params G.Nodes
	of     []*param
	starts []int // each row's start, set by bind
}

// dropMask is one dropout layer's mask input: positions × width, or, for the attention weights,
// the block matrix of the causal regions.
type dropMask[T float] struct {
	node *G.Node
	data []T
	attn bool
}

// seqBuilder builds the encoder's graph: the layers as expressions of stock Gorgonia ops and
// the causal softmax primitive (towerExpression, the specification), or with the fused ops
// (towerFused: embedOp, layerNormOp, attnWeightsOp and headProductOp, residualOp, the towers'
// dense op, and the primitives of package losses for the other element-wise products and
// sums).
type seqBuilder[T float] struct {
	n     *sasrecNodes[T]
	g     *G.ExprGraph
	dt    tensor.Dtype
	impl  towerImpl
	train bool
	geom  attnGeom
}

// sasrecFwd is the forward definition of the encoder e, the one used by training and by
// inference (sasrec's doc gives the equations): the graph of rows windows of length positions
// built as impl says, with the dropout layers of a training graph when train and the rate is
// positive (their masks are inputs, filled from the caller's random source by fillDropout),
// and none at inference.
func sasrecFwd[T float](e *sasrec, g *G.ExprGraph, rows, length int, impl towerImpl, train bool) (n *sasrecNodes[T], err error) {
	if rows < 1 || length < 1 || length > e.s.MaxLength {
		return nil, fmt.Errorf("models: a sasrec graph of %d windows of length %d (max_length %d)", rows, length, e.s.MaxLength)
	}
	dt := tensor.Float32
	if _, ok := any(T(0)).(float64); ok {
		dt = tensor.Float64
	}
	n = &sasrecNodes[T]{e: e, rows: rows, length: length, starts: make([]int, rows)}
	b := &seqBuilder[T]{n: n, g: g, dt: dt, impl: impl, train: train && e.dropout() > 0, geom: attnGeom{length, e.s.Heads}}
	// G.Must panics with the error of an op that cannot be built (shapes, dtypes).
	defer func() {
		if r := recover(); r != nil {
			perr, ok := r.(error)
			if !ok {
				perr = fmt.Errorf("%v", r)
			}
			n, err = nil, fmt.Errorf("models: building the sasrec graph: %w", perr)
		}
	}()
	rl := rows * length
	n.x, n.xData = b.input("sasrec.x", rl, e.d)
	n.keep, n.keepData = b.input("sasrec.keep", rl, 1)
	h := b.embed(n.x)
	for i, blk := range e.blocks {
		name := fmt.Sprintf("sasrec.%d", i)
		qn := b.layerNorm(h, blk.ln1, name+".ln1")
		q := b.dense(qn, blk.query, false, name+".query")
		k := b.dense(h, blk.key, false, name+".key")
		v := b.dense(h, blk.val, false, name+".value")
		s := b.add(b.attention(q, k, v), qn)
		fn := b.layerNorm(s, blk.ln2, name+".ln2")
		f := b.dropout(b.dense(fn, blk.ffn1, true, name+".ffn1"))
		h = b.residual(b.dense(f, blk.ffn2, false, name+".ffn2"), fn)
	}
	n.out = b.maskRows(b.layerNorm(h, e.norm, "sasrec.ln"))
	return n, nil
}

// input is a new input matrix of the graph and the array it is bound to.
func (b *seqBuilder[T]) input(name string, r, c int) (*G.Node, []T) {
	d := make([]T, r*c)
	return G.NewMatrix(b.g, b.dt, G.WithShape(r, c), G.WithName(name),
		G.WithValue(tensor.New(tensor.WithShape(r, c), tensor.WithBacking(d)))), d
}

// param is a node bound to the dense parameter p, which the graph's gradients are taken of.
func (b *seqBuilder[T]) param(p *param) *G.Node {
	node := paramNode[T](b.g, b.dt, p)
	b.n.params = append(b.n.params, node)
	b.n.of = append(b.n.of, p)
	return node
}

// embed is keep ⊙ Dropout(c·x + P[MaxLength − L + t]) at every position t of every window: the
// item embedding scaled by c (SequenceSettings.embeddingScale: √d as Kang & McAuley's code
// scales it, modules.py, embedding: scale=True, or 1) plus the learned positional embedding
// (section III-A), dropped, zero at padding.
func (b *seqBuilder[T]) embed(x *G.Node) *G.Node {
	e, rows, L := b.n.e, b.n.rows, b.n.length
	pos := b.param(e.pos)
	scale := e.s.embeddingScale(e.d)
	if b.impl == towerFused {
		args := G.Nodes{x, pos, b.n.keep}
		if b.train {
			args = append(args, b.mask(rows*L, e.d, false))
		}
		return G.Must(G.ApplyOp(newEmbed[T](scale, L, e.s.MaxLength, b.train), args...))
	}
	if L < e.s.MaxLength {
		pos = G.Must(G.Slice(pos, G.S(e.s.MaxLength-L, e.s.MaxLength)))
	}
	pos = G.Must(G.Reshape(pos, tensor.Shape{1, L * e.d}))
	xs := G.Must(G.Reshape(G.Must(G.Mul(x, constant(b.dt, scale))), tensor.Shape{rows, L * e.d}))
	sum := G.Must(G.Reshape(G.Must(G.BroadcastAdd(xs, pos, nil, []byte{0})), tensor.Shape{rows * L, e.d}))
	return b.maskRows(b.dropout(sum))
}

// residual is keep ⊙ (Dropout(f) + r): a block's output from its feed-forward output f and the
// residual r.
func (b *seqBuilder[T]) residual(f, r *G.Node) *G.Node {
	if b.impl == towerFused {
		args := G.Nodes{f, r, b.n.keep}
		if b.train {
			s := f.Shape()
			args = append(args, b.mask(s[0], s[1], false))
		}
		return G.Must(G.ApplyOp(newResidual[T](b.n.length, b.train), args...))
	}
	return b.maskRows(b.add(b.dropout(f), r))
}

// dropout is x ⊙ M in a training graph, the mask M (x's shape) an input of the graph, and x
// itself otherwise.
func (b *seqBuilder[T]) dropout(x *G.Node) *G.Node {
	if !b.train {
		return x
	}
	s := x.Shape()
	return b.mul(x, b.mask(s[0], s[1], false))
}

// mask is a new dropout mask input of r×c (attn: the attention weights' block matrix).
func (b *seqBuilder[T]) mask(r, c int, attn bool) *G.Node {
	m, data := b.input(fmt.Sprintf("sasrec.dropout%d", len(b.n.drop)), r, c)
	b.n.drop = append(b.n.drop, dropMask[T]{node: m, data: data, attn: attn})
	return m
}

// mul is x ⊙ y (equal shapes).
func (b *seqBuilder[T]) mul(x, y *G.Node) *G.Node {
	if b.impl == towerExpression {
		return G.Must(G.HadamardProd(x, y))
	}
	return losses.MulCols(x, y)
}

// add is x + y (equal shapes).
func (b *seqBuilder[T]) add(x, y *G.Node) *G.Node {
	if b.impl == towerExpression {
		return G.Must(G.Add(x, y))
	}
	return losses.AddEach(x, y)
}

// maskRows is keep ⊙ x: x with the rows of padded positions zeroed.
func (b *seqBuilder[T]) maskRows(x *G.Node) *G.Node {
	if b.impl == towerExpression {
		return G.Must(G.BroadcastHadamardProd(x, b.n.keep, nil, []byte{1}))
	}
	return losses.MulRows(x, b.n.keep)
}

// dense is x·W + b, followed by ReLU when relu.
func (b *seqBuilder[T]) dense(x *G.Node, l layer, relu bool, name string) *G.Node {
	return G.Must(denseLayer[T](x, b.param(l.w), b.param(l.b), name, ActivationReLU.definition(), !relu, b.impl, true, nil))
}

// layerNorm is γ ⊙ (x − μ)/sqrt(σ² + ε) + β of every row (Kang & McAuley section III-C), ε
// of the settings (SequenceSettings.normEpsilon).
func (b *seqBuilder[T]) layerNorm(x *G.Node, ln layerNorm, name string) *G.Node {
	gamma, beta := b.param(ln.gamma), b.param(ln.beta)
	if b.impl == towerFused {
		return G.Must(G.ApplyOp(newLayerNorm[T](name, b.n.e.s.normEpsilon()), x, gamma, beta))
	}
	s := x.Shape()
	col := func(v *G.Node) *G.Node { return G.Must(G.Reshape(v, tensor.Shape{s[0], 1})) }
	mu := col(G.Must(G.Mean(x, 1)))
	xc := G.Must(G.BroadcastSub(x, mu, nil, []byte{1}))
	v := col(G.Must(G.Mean(G.Must(G.Square(xc)), 1)))
	sd := G.Must(G.Sqrt(G.Must(G.Add(v, constant(b.dt, b.n.e.s.normEpsilon())))))
	xh := G.Must(G.BroadcastHadamardDiv(xc, sd, nil, []byte{1}))
	row := func(p *G.Node) *G.Node { return G.Must(G.Reshape(p, tensor.Shape{1, s[1]})) }
	y := G.Must(G.BroadcastHadamardProd(xh, row(gamma), nil, []byte{0}))
	return G.Must(G.BroadcastAdd(y, row(beta), nil, []byte{0}))
}

// attention is the causal multi-head attention of queries q, keys k and values v (positions ×
// d): for every window and head (columns [h·d_h, (h+1)·d_h), d_h = d/heads), the weights
// P = softmax(QKᵀ/√d_h) over the keys s ≤ j ≤ i (causalSoftmaxOp; a padded query's row is
// zero), dropped in a training graph, then P·V, the heads side by side (Kang & McAuley section
// III-B; the scale √d_h as their code takes it, √d with one head).
func (b *seqBuilder[T]) attention(q, k, v *G.Node) *G.Node {
	e, g, keep := b.n.e, b.geom, b.n.keep
	dh := e.d / g.heads
	alpha := 1 / math.Sqrt(float64(dh))
	blocks := b.n.rows * g.heads * g.length
	if b.impl == towerFused {
		p := G.Must(G.ApplyOp(newAttnWeights[T](g, alpha, false), q, k, keep))
		args := G.Nodes{p, v, keep}
		if b.train {
			args = append(args, b.mask(blocks, g.length, true))
		}
		return G.Must(G.ApplyOp(newHeadProduct[T](productRow, g, 1, b.train, false), args...))
	}
	heads := func(x *G.Node) *G.Node { // positions × d → (windows·heads) × L × d_h
		x = G.Must(G.Reshape(x, tensor.Shape{b.n.rows, g.length, g.heads, dh}))
		x = G.Must(G.Transpose(x, 0, 2, 1, 3))
		return G.Must(G.Reshape(x, tensor.Shape{b.n.rows * g.heads, g.length, dh}))
	}
	s := G.Must(G.BatchedMatMul(heads(q), heads(k), false, true))
	s = G.Must(G.Mul(G.Must(G.Reshape(s, tensor.Shape{blocks, g.length})), constant(b.dt, alpha)))
	p := G.Must(G.ApplyOp(newCausalSoftmax[T](g), s, keep))
	if b.train {
		p = G.Must(G.HadamardProd(p, b.mask(blocks, g.length, true)))
	}
	p = G.Must(G.Reshape(p, tensor.Shape{b.n.rows * g.heads, g.length, g.length}))
	o := G.Must(G.BatchedMatMul(p, heads(v)))
	o = G.Must(G.Reshape(o, tensor.Shape{b.n.rows, g.heads, g.length, dh}))
	o = G.Must(G.Transpose(o, 0, 2, 1, 3))
	return G.Must(G.Reshape(o, tensor.Shape{b.n.rows * g.length, e.d}))
}

// bind fills the graph's inputs for the window w (checked by the caller: w.Rows and w.Len the
// graph's): x with the input table's rows of w's items (zero at padding) and keep.
func (n *sasrecNodes[T]) bind(w *Window) {
	d, items := n.e.d, values[T](n.e.items)
	parallelRows(w.Rows, w.Len*d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			s := w.start(r)
			n.starts[r] = s
			for j := range w.Len {
				i := r*w.Len + j
				x := n.xData[i*d : (i+1)*d]
				if j < s {
					clear(x)
					n.keepData[i] = 0
					continue
				}
				copy(x, items[int(w.Items[i])*d:])
				n.keepData[i] = 1
			}
		}
	})
}

// fillDropout draws the step's dropout masks from rng, in graph order. An attention mask is
// drawn only in the causal regions of the windows bind last bound (the only entries the
// attention reads): one 64-bit draw s from rng, then block (sequence b, head k) from the PCG
// stream (s, b·heads + k), row by row, the blocks in parallel.
func (n *sasrecNodes[T]) fillDropout(rng *rand.Rand) {
	p, L, h := n.e.dropout(), n.length, n.e.s.Heads
	for _, m := range n.drop {
		if !m.attn {
			fillDropout(m.data, p, rng)
			continue
		}
		seed := rng.Uint64()
		parallelRows(len(n.starts)*h, L*L/2, func(lo, hi int) {
			var src rand.PCG
			for blk := lo; blk < hi; blk++ {
				src.Seed(seed, uint64(blk))
				s, m := n.starts[blk/h], m.data[blk*L*L:(blk+1)*L*L]
				for i := s; i < L; i++ {
					bernoulli(m[i*L+s:i*L+i+1], p, &src)
				}
			}
		})
	}
}

// scatter adds the gradient dx of the graph's x (rows·length × d) to the item rows of the window
// w bound last: the transpose of bind's gather.
func (n *sasrecNodes[T]) scatter(w *Window, dx []T, rg *rowGrad[T]) {
	d := n.e.d
	for r := range w.Rows {
		for j := n.starts[r]; j < w.Len; j++ {
			i := r*w.Len + j
			addTo(rg.row(w.Items[i]), dx[i*d:(i+1)*d])
		}
	}
}

// sasrecInference is a compiled inference graph of the encoder (no dropout) for windows of a
// fixed shape.
type sasrecInference[T float] struct {
	n  *sasrecNodes[T]
	vm G.VM
}

func newSASRecInference[T float](e *sasrec, rows, length int, impl towerImpl) (*sasrecInference[T], error) {
	g := G.NewGraph()
	n, err := sasrecFwd[T](e, g, rows, length, impl, false)
	if err != nil {
		return nil, err
	}
	vm, err := tape.Machine(g, n.out)
	if err != nil {
		return nil, fmt.Errorf("models: the sasrec encoder: %w", err)
	}
	return &sasrecInference[T]{n: n, vm: vm}, nil
}

// run returns the hidden states of the window w (w.Rows·w.Len × d, valid until the next run).
func (f *sasrecInference[T]) run(w *Window) ([]T, error) {
	if w.Rows != f.n.rows || w.Len != f.n.length {
		return nil, fmt.Errorf("models: a window of %d×%d for a graph of %d×%d", w.Rows, w.Len, f.n.rows, f.n.length)
	}
	if err := w.check(f.n.e.items.shape[0], f.n.e.s.MaxLength); err != nil {
		return nil, err
	}
	f.n.bind(w)
	defer f.vm.Reset()
	if err := f.vm.RunAll(); err != nil {
		return nil, fmt.Errorf("models: the sasrec encoder: %w", err)
	}
	return data[T](f.n.out.Value()), nil
}

// encode returns the encoder's hidden states of the window w at every position (w.Rows·w.Len ×
// d, row-major; zero at padded positions), by the inference graph of the forward definition.
func (e *sasrec) encode(w *Window) ([]float32, error) {
	if w.Rows == 0 {
		return []float32{}, nil
	}
	if _, ok := e.items.data.([]float64); ok {
		return encodeT[float64](e, w)
	}
	return encodeT[float32](e, w)
}

func encodeT[T float](e *sasrec, w *Window) ([]float32, error) {
	f, err := newSASRecInference[T](e, w.Rows, w.Len, towerFused)
	if err != nil {
		return nil, err
	}
	h, err := f.run(w)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(h))
	for i, v := range h {
		out[i] = float32(v)
	}
	return out, nil
}
