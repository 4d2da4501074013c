package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/internal/simd"
)

// Tower sides.
const (
	sideQuery = iota
	sideItem
)

var sideNames = [2]string{"query", "item"}

// param is one parameter array owned by the Model: an embedding table (rows × EmbeddingDim),
// a weight matrix (in × out) or a bias (out). Graphs bind tensors over data, so every graph and
// the inference path read and update the same memory.
type param struct {
	name  string
	shape []int
	data  any // []float32 or []float64
}

func (p *param) size() int {
	n := 1
	for _, d := range p.shape {
		n *= d
	}
	return n
}

// values returns the parameter's elements as []T.
func values[T float](p *param) []T { return p.data.([]T) }

// fieldInput places one categorical field of a tower in the tower's input vector.
type fieldInput struct {
	field *datasets.Field
	table int // index into Model.tables
	off   int // first column of the field's pooled embedding in the input
}

// layer is one dense layer y = act(x·w + b) with w stored in × out.
type layer struct {
	w, b    *param
	in, out int
}

// tower is the network of one side: pooled embeddings and dense features → MLP → L2 norm.
type tower struct {
	side     int
	n        int // number of entities
	feats    *datasets.Features
	fields   []fieldInput
	denseOff int           // first column of the dense features
	history  *historyInput // the mean of a history of items (query side; nil: none)
	in       int           // input width: fields × EmbeddingDim + DenseDim
	layers   []layer
}

// Model is a two-tower retrieval model (Yi et al. 2019, section 2): a query tower u(x) and an
// item tower v(y), each mean-pooling the embeddings of its entity's feature bags, concatenating
// the dense features and applying an MLP, with L2-normalised outputs scored by ⟨u, v⟩.
//
// The parameters live in the Model, outside any computation graph: training graphs of any batch
// size and the inference path (EmbedQueries, EmbedItems) all read the same arrays. A Model is not
// safe for use by several goroutines while it trains; once trained, EmbedQueries and EmbedItems
// may be called concurrently.
type Model struct {
	s      Settings
	dt     tensor.Dtype
	tables []*param // embedding tables
	towers [2]*tower
	// enc is the query encoder of Sequence.Encoder = sasrec (nil otherwise): the query tower
	// then has no fields nor layers, and the item tower is the output item table alone.
	enc    *sasrec
	logTau *param // learned log τ (losses.Settings.LearnTemperature), else nil
}

// New builds a model for the features of ds with seeded initialisation: embedding rows from
// N(0, InitStd²), MLP weights Glorot-uniform, biases zero. dt is tensor.Float32 (the default
// choice) or tensor.Float64. The model keeps references to ds's feature bags (read-only).
//
// With s.Sequence the query is a history of the user's items (docs/encoders.md): ds must then
// have its sequence index (datasets.Options.Sequences; a source with timestamps). The mean
// encoder adds the mean of the history's item embeddings to the query tower's input, between
// the feature bags and the dense features (with ShareEmbeddings it reads the item tower's id
// table, Yi et al.'s sharing of the video id table). SASRec replaces the query tower, and the
// item tower is the output item table: an item's embedding is its row, unnormalised, as Kang &
// McAuley score ⟨F_t, M_i⟩ (section III-D); the data's items must then have their id as their
// only feature and the queries no feature but their id.
func New(s Settings, ds *datasets.Dataset, dt tensor.Dtype, seed int64) (*Model, error) {
	s.Hidden = append([]int(nil), s.Hidden...) // not the caller's array
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("models: dtype %v not supported (float32 or float64)", dt)
	}
	if ds == nil {
		return nil, errors.New("models: nil dataset")
	}
	seq := &s.Sequence
	if seq.ReadsHistory() && ds.Sequences == nil {
		return nil, fmt.Errorf("sequence.encoder: %q reads each user's training items in time order, and dataset %q has none "+
			"(a source without timestamps or users, or a dataset loaded without datasets.Options.Sequences)", seq.Encoder, ds.Name)
	}
	if seq.Encoder == EncoderSASRec {
		return newSASRecModel(s, ds, dt, seed)
	}
	var hist *SequenceSettings
	if seq.Encoder == EncoderMean {
		hist = seq
	}
	m := &Model{s: s, dt: dt}
	shared := map[string]int{} // field name → table, for sharing between towers
	feats := [2]*datasets.Features{ds.QueryFeatures, ds.ItemFeatures}
	counts := [2]int{ds.Queries, ds.Items}
	for side, fs := range feats {
		if fs == nil {
			return nil, fmt.Errorf("models: dataset %q has no %s features", ds.Name, sideNames[side])
		}
		t := &tower{side: side, n: counts[side], feats: fs}
		for i := range fs.Fields {
			f := &fs.Fields[i]
			if err := checkField(f, t.n); err != nil {
				return nil, fmt.Errorf("models: %s field %q: %w", sideNames[side], f.Name, err)
			}
			for _, g := range fs.Fields[:i] {
				if g.Name == f.Name {
					return nil, fmt.Errorf("models: two %s fields are named %q", sideNames[side], f.Name)
				}
			}
			ti, ok := shared[f.Name]
			switch {
			case ok && side == sideItem && s.ShareEmbeddings:
				if v := m.tables[ti].shape[0]; v != f.Vocab {
					return nil, fmt.Errorf("models: shared field %q has vocabulary %d on the query side and %d on the item side", f.Name, v, f.Vocab)
				}
				m.tables[ti].name = "shared." + f.Name
			default:
				ti = len(m.tables)
				m.tables = append(m.tables, m.newParam(sideNames[side]+"."+f.Name, f.Vocab, s.EmbeddingDim))
				if side == sideQuery {
					shared[f.Name] = ti
				}
			}
			t.fields = append(t.fields, fieldInput{field: f, table: ti, off: t.in})
			t.in += s.EmbeddingDim
		}
		if side == sideQuery && hist != nil {
			t.history = &historyInput{off: t.in, maxLen: hist.MaxLength}
			t.in += s.EmbeddingDim
		}
		if fs.DenseDim < 0 || len(fs.Dense) != t.n*fs.DenseDim {
			return nil, fmt.Errorf("models: %s dense features: %d values for %d×%d", sideNames[side], len(fs.Dense), t.n, fs.DenseDim)
		}
		t.denseOff = t.in
		t.in += fs.DenseDim
		if t.in == 0 {
			return nil, fmt.Errorf("models: the %s side has neither feature fields nor dense features", sideNames[side])
		}
		in := t.in
		for l, h := range s.Hidden {
			t.layers = append(t.layers, layer{
				w:  m.newParam(fmt.Sprintf("%s.w%d", sideNames[side], l), in, h),
				b:  m.newParam(fmt.Sprintf("%s.b%d", sideNames[side], l), h),
				in: in, out: h,
			})
			in = h
		}
		m.towers[side] = t
	}
	if h := m.towers[sideQuery].history; h != nil {
		if err := m.historyTable(h, ds.Items); err != nil {
			return nil, err
		}
	}
	m.init(seed)
	return m, nil
}

// checkField checks that a field's bags are well formed for n entities.
func checkField(f *datasets.Field, n int) error {
	switch {
	case f.Vocab <= 0:
		return fmt.Errorf("vocabulary %d", f.Vocab)
	case len(f.Offsets) != n+1 || f.Offsets[0] != 0 || int(f.Offsets[n]) != len(f.IDs):
		return fmt.Errorf("offsets do not cover %d entities and %d ids", n, len(f.IDs))
	case f.Weights != nil && len(f.Weights) != len(f.IDs):
		return fmt.Errorf("%d weights for %d ids", len(f.Weights), len(f.IDs))
	}
	for e := range n {
		if f.Offsets[e] > f.Offsets[e+1] {
			return fmt.Errorf("offsets decrease at entity %d", e)
		}
	}
	for k, id := range f.IDs {
		if id < 0 || int(id) >= f.Vocab {
			return fmt.Errorf("id %d (position %d) out of range [0, %d)", id, k, f.Vocab)
		}
	}
	return nil
}

func (m *Model) newParam(name string, shape ...int) *param { return newParamOf(m.dt, name, shape...) }

// newParamOf returns a zero parameter of dtype dt.
func newParamOf(dt tensor.Dtype, name string, shape ...int) *param {
	p := &param{name: name, shape: shape}
	if dt == tensor.Float64 {
		d := make([]float64, p.size())
		adviseHugePages(d)
		p.data = d
	} else {
		d := make([]float32, p.size())
		adviseHugePages(d)
		p.data = d
	}
	return p
}

// params lists every parameter in a fixed order: tables, then query layers, then item layers,
// then SASRec's dense parameters, then the learned log τ if any.
func (m *Model) params() []*param {
	ps := append([]*param(nil), m.tables...)
	for _, t := range m.towers {
		for _, l := range t.layers {
			ps = append(ps, l.w, l.b)
		}
	}
	if m.enc != nil {
		ps = append(ps, m.enc.dense()...)
	}
	if m.logTau != nil {
		ps = append(ps, m.logTau)
	}
	return ps
}

func (m *Model) init(seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d6f64656c73)) // "models"
	for _, p := range m.tables {
		fillParam(p, func() float64 { return m.s.InitStd * rng.NormFloat64() })
	}
	for _, t := range m.towers {
		for _, l := range t.layers {
			glorot(l, rng)
		}
	}
}

// fillParam sets every element of p, in order, to the next value of f.
func fillParam(p *param, f func() float64) {
	switch d := p.data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(f())
		}
	case []float64:
		for i := range d {
			d[i] = f()
		}
	}
}

// glorot draws the weights of l from Glorot and Bengio's uniform law, U(−a, a) with
// a = sqrt(6/(in + out)).
func glorot(l layer, rng *rand.Rand) {
	a := math.Sqrt(6 / float64(l.in+l.out))
	fillParam(l.w, func() float64 { return a * (2*rng.Float64() - 1) })
}

// Dim returns the dimension of the embeddings u and v: the last hidden size, or the embedding
// dimension with SASRec.
func (m *Model) Dim() int { return m.s.Dim() }

// Dtype returns the element type of the parameters.
func (m *Model) Dtype() tensor.Dtype { return m.dt }

// Settings returns the resolved settings of the model.
func (m *Model) Settings() Settings {
	s := m.s
	s.Hidden = append([]int(nil), s.Hidden...)
	return s
}

// NumParams returns the number of scalar parameters (embedding tables and MLPs).
func (m *Model) NumParams() int {
	n := 0
	for _, p := range m.params() {
		n += p.size()
	}
	return n
}

// inferenceRows is the number of entities embedded per forward pass by EmbedQueries/EmbedItems.
const inferenceRows = 2048

// EmbedQueries returns the L2-normalised query embeddings u of the given query ids, row-major
// len(ids) × Dim(). It runs the tower's forward definition (the one the training graph is built
// from) in an inference graph, in chunks.
func (m *Model) EmbedQueries(ids []int32) ([]float32, error) { return m.embed(sideQuery, ids) }

// EmbedItems returns the L2-normalised item embeddings v of the given item ids, row-major
// len(ids) × Dim() (pass every id 0..Items-1 to embed the corpus for full-corpus Recall@K).
func (m *Model) EmbedItems(ids []int32) ([]float32, error) { return m.embed(sideItem, ids) }

func (m *Model) embed(side int, ids []int32) ([]float32, error) {
	t := m.towers[side]
	if side == sideQuery && m.ReadsHistory() {
		return nil, errors.New("models: the query tower reads histories, which EmbedQueries does not have (EmbedPairQueries does)")
	}
	for _, id := range ids {
		if id < 0 || int(id) >= t.n {
			return nil, fmt.Errorf("models: %s id %d out of range [0, %d)", sideNames[side], id, t.n)
		}
	}
	if m.dt == tensor.Float64 {
		return embedT[float64](m, t, ids, towerFused)
	}
	return embedT[float32](m, t, ids, towerFused)
}

func embedT[T float](m *Model, t *tower, ids []int32, impl towerImpl) ([]float32, error) {
	return embedWindowT[T](m, t, ids, nil, impl)
}

// embedWindowT embeds ids by t's inference graph, in chunks; row r of w is the history of
// ids[r] for a tower that reads one (w nil otherwise).
func embedWindowT[T float](m *Model, t *tower, ids []int32, w *Window, impl towerImpl) ([]float32, error) {
	out := make([]float32, len(ids)*m.Dim())
	if len(ids) == 0 {
		return out, nil
	}
	f, err := newInference[T](m, t, min(len(ids), inferenceRows), impl)
	if err != nil {
		return nil, err
	}
	return out, runChunks(f, ids, w, out)
}

// runChunks writes into out (len(ids) × Dim) the outputs of f for ids, f.rows at a time; row r
// of w is the history of ids[r] for a tower that reads one (w nil otherwise).
func runChunks[T float](f *inference[T], ids []int32, w *Window, out []float32) error {
	d := f.m.Dim()
	for lo := 0; lo < len(ids); lo += f.rows {
		hi := min(lo+f.rows, len(ids))
		var part *Window
		if w != nil {
			part = &Window{Rows: hi - lo, Len: w.Len, Items: w.Items[lo*w.Len : hi*w.Len]}
		}
		y, err := f.runWindow(ids[lo:hi], part)
		if err != nil {
			return err
		}
		for i, v := range y {
			out[lo*d+i] = float32(v)
		}
	}
	return nil
}

// gather fills x (len(ids) × t.in) with the tower inputs of the entities ids: for every field
// the weighted mean of the embedding rows of the entity's bag (Σ w_k E[id_k] / Σ w_k; zeros for
// an empty bag or a zero weight sum), then the dense features. Only the rows used are read. With
// rep (nil: none; listed from ids), each entity is pooled once and its repeated rows copied.
func gather[T float](m *Model, t *tower, ids []int32, x []T, rep *repeats) {
	dim := m.s.EmbeddingDim
	dd := t.feats.DenseDim
	var at []int32 // the row of entity k of ids (nil: row k)
	if rep.active() {
		ids, at = rep.ids, rep.first
	}
	parallelRows(len(ids), t.in, func(lo, hi int) {
		for _, fi := range t.fields {
			prefetchBags(fi.field, ids[lo:hi], values[T](m.tables[fi.table]), dim)
		}
		for k := lo; k < hi; k++ {
			r, e := k, int(ids[k])
			if at != nil {
				r = int(at[k])
			}
			row := x[r*t.in : (r+1)*t.in]
			for _, fi := range t.fields {
				pool(row[fi.off:fi.off+dim], fi.field, e, values[T](m.tables[fi.table]))
			}
			if dd > 0 {
				for j, v := range t.feats.Dense[e*dd : e*dd+dd] {
					row[t.denseOff+j] = T(v)
				}
			}
		}
	})
	if at != nil {
		expandRows(rep, x, t.in)
	}
}

// prefetchBags asks the processor to bring the embedding rows (dim values of emb each) of the
// bags of f of the entities ids into its caches, so that the rows, scattered over a table
// larger than the caches, arrive together rather than one at a time as pool reads them.
func prefetchBags[T float](f *datasets.Field, ids []int32, emb []T, dim int) {
	e32, ok := any(emb).([]float32)
	if !ok {
		return
	}
	for _, e := range ids {
		bag, _ := f.Bag(int(e))
		for _, id := range bag {
			simd.Prefetch(e32[int(id)*dim : int(id)*dim+dim])
		}
	}
}

// pool sets seg to the weighted mean of the rows of emb (dim = len(seg)) in entity e's bag of f.
func pool[T float](seg []T, f *datasets.Field, e int, emb []T) {
	bag, w := f.Bag(e)
	poolBag(seg, bag, w, emb)
}

// poolBag sets seg to the mean of the rows of emb (dim = len(seg)) of the ids of bag, weighted
// by w (nil: all 1): zeros for an empty bag or a zero weight sum.
func poolBag[T float](seg []T, bag []int32, w []float32, emb []T) {
	dim := len(seg)
	if len(bag) == 1 && w == nil {
		// The mean of one row: the loop below gives 0 + 1·e = e + 0, then ·(1/1).
		addConst(seg, emb[int(bag[0])*dim:int(bag[0])*dim+dim], 0)
		return
	}
	clear(seg)
	var sum T
	for k, id := range bag {
		wk := T(1)
		if w != nil {
			wk = T(w[k])
		}
		sum += wk
		addScaled(seg, wk, emb[int(id)*dim:int(id)*dim+dim])
	}
	if sum != 0 {
		scaleTo(seg, seg, 1/sum)
	}
}
