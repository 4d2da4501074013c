package losses

import (
	"fmt"
	"math"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/reuse"
)

// kind is the shape of a loss: every variant is one of three row kernels.
type kind int

const (
	// kindSoftmax: ℓ_i = LSE_j z_ij − z_ip over the unmasked columns, with
	// z_ij = s_ij/τ + c_ij.
	kindSoftmax kind = iota
	// kindLogistic: ℓ_i = softplus(−z_ip) + Σ_{j≠p unmasked} w_ij·softplus(z_ij).
	kindLogistic
	// kindMSE: ℓ_i = (s_ip − 1)², plus the Gramian term.
	kindMSE
)

// plan is everything a row kernel needs, built from the settings and the step
// at every execution: the one derivation of the positive columns, the masks and the
// corrections, which the fused kernels run on and the expressions' binding gives to
// their inputs. Its slices are reused from one execution to the next.
type plan struct {
	kind    kind
	b, c    int
	layout  candidates.Layout
	perRow  bool // the per-column slices below hold R·C entries, row i's at i·C (Geometry.PerRow)
	posCol  []int
	invTau  float64
	variant Variant // for messages
	// Padding (Geometry.Padded): valid[i] says that row i is not padding (nil: every row is);
	// nValid counts the valid rows. A padding row has no loss, and under layout diagonal its
	// column is masked from every other row, as is every shared column without an item (a
	// memory column holding an earlier step's padding row, an empty drawn column of an
	// Unfilled geometry): padCols[j] (where maskedColumns), nPadCols of them.
	valid, bufValid   []bool
	nValid            int
	padCols, bufPadCs []bool
	nPadCols          int
	// masks says that some entries are masked (accidental hits, dedupe's copies, padding
	// columns): masked must be asked.
	masks bool
	// Additive corrections (already divided by τ when correct_at = scores):
	// a non-positive column j of row i gets colOff[j] + rowOff[i] (colOff[i·C + j]
	// under perRow, as for every per-column slice), the positive gets posOff[i].
	// A nil slice means zero.
	colOff, rowOff, posOff []float64
	// Multiplicative weights of the decoupled form: a non-positive column j of
	// row i is weighted colW[j]·rowW[i]. Nil means weight 1.
	colW, rowW []float64
	// Buffers behind colOff, rowOff, posOff, colW and rowW, kept across executions.
	bufCol, bufRow, bufPos, bufColW, bufRowW []float64
	// Accidental hits: non-nil iff removed (always with logq_probability = dedupe).
	rowItem, colItem []int64
	// dup[j] (logq_probability = dedupe) marks a column whose item already fills an
	// earlier column: masked from every row but the one whose positive it is. Nil
	// otherwise. bufDup and first back it across executions.
	dup    []bool
	bufDup []bool
	first  map[int64]struct{}
	// The columns of each item for appendMasked: colHead[item] is its last column, colPrev[j]
	// the column of the same item before j (−1 for none); dupCols the columns dup marks.
	colHead          map[int64]int
	colPrev, dupCols []int
	// scale is 1/B (reduction mean; 1/valid rows with padding) or 1 (sum); coef[i] = r_i·scale
	// (0 for a padding row).
	scale float64
	coef  []float64
	// Gramian term of mse_gramian: gramCoef·Σ_{valid i, j ≥ gramFrom} gramW[j]·s_ij² over the
	// columns that are no padding row's (gramW nil: weight 1). The Gramian columns j ≥ gramFrom
	// are set for every variant, gramW for mse_gramian (the binding gives both to expressions).
	gramCoef        float64
	gramFrom        int
	gramCols        int // C_g, the number of Gramian columns
	gramW, bufGramW []float64
	// Gradient representation left by execute (len b): see execute.
	rowScale, posAdd []float64
}

func (p *plan) pos(i int) int {
	switch p.layout {
	case candidates.Diagonal:
		return i
	case candidates.First:
		return 0
	}
	return p.posCol[i]
}

// padding reports whether row i is padding.
func (p *plan) padding(i int) bool { return p.valid != nil && !p.valid[i] }

// negatives is m, the number of a row's negatives by the convention NegativeCount: C − 1, less
// the masked shared columns (padCol), which are no row's negatives;
// at least 1, so that log m is finite in a step with a single valid row and no other column
// (whose rows have no negative to correct).
func (p *plan) negatives() int { return max(NegativeCount(p.c-p.nPadCols), 1) }

// padCol reports whether column j is a shared column without an item, masked from every row
// (layout diagonal: a padding row's positive, column j of the first R being row j's, or a memory
// column holding one; an empty drawn column of an Unfilled geometry).
func (p *plan) padCol(j int) bool {
	return p.padCols != nil && j < len(p.padCols) && p.padCols[j]
}

// entries is the length of the step's per-column slices: C, or R·C per row.
func (p *plan) entries() (int, string) {
	if p.perRow {
		return p.b * p.c, "R·C"
	}
	return p.c, "C"
}

// colsOf is row i's part of a per-column slice x: x itself for shared columns, nil for a nil x.
func colsOf[E any](p *plan, x []E, i int) []E {
	if x == nil {
		return nil
	}
	if p.perRow {
		return x[i*p.c : (i+1)*p.c]
	}
	return x[:p.c]
}

// take resizes *b to n and returns it.
func take(b *[]float64, n int) []float64 {
	*b = reuse.Grow(*b, n)
	return *b
}

// MissingSideError is the error of a loss that reads a side input its step does not have: the
// step's producers (its sampler, the data) declare no such name.
type MissingSideError struct {
	Variant Variant
	Side    string
	// Sampler names the step's sampler; Has lists the side inputs the step has, with their
	// producers (candidates.Step.Describe).
	Sampler, Has string
}

func (e *MissingSideError) Error() string {
	return fmt.Sprintf("losses: variant %s reads the side input %s, which neither sampler %s nor the data declares (the step has %s)",
		e.Variant, e.Side, e.Sampler, e.Has)
}

// missing is the MissingSideError of side input name in step st.
func (p *plan) missing(st *candidates.Step, name string) error {
	return &MissingSideError{Variant: p.variant, Side: name, Sampler: st.Geometry.Sampler, Has: st.Describe()}
}

func checkLen[E any](what string, x []E, want int, dim string) error {
	if len(x) != want {
		return fmt.Errorf("losses: %s has %d values, want %s = %d", what, len(x), dim, want)
	}
	return nil
}

// colLogs returns the per-column values of the side input name, checked: one per entry (C, or
// R·C per row), none NaN or +Inf, nor −Inf unless negInf. The columns of padding rows are not
// checked (they are masked).
func (p *plan) colLogs(st *candidates.Step, name string, negInf bool) ([]float64, error) {
	if _, ok := st.Lookup(name); !ok {
		return nil, p.missing(st, name)
	}
	x := st.Col(name)
	n, dim := p.entries()
	if err := checkLen("side input "+name, x, n, dim); err != nil {
		return nil, err
	}
	for k, v := range x {
		if !validLog(v, negInf) && !p.padCol(k%p.c) && !(p.perRow && p.padding(k/p.c)) {
			return nil, fmt.Errorf("losses: side input %s of column %d = %v is not a valid log-probability", name, k, v)
		}
	}
	return x, nil
}

// rowLogs returns the values of the side input name at each row's positive (R), checked as
// colLogs does, padding rows aside.
func (p *plan) rowLogs(st *candidates.Step, name string, negInf bool) ([]float64, error) {
	if _, ok := st.Lookup(name); !ok {
		return nil, p.missing(st, name)
	}
	x := st.Row(name)
	if err := checkLen("side input "+name+" of the rows", x, p.b, "R"); err != nil {
		return nil, err
	}
	for i, v := range x {
		if !validLog(v, negInf) && !p.padding(i) {
			return nil, fmt.Errorf("losses: side input %s of row %d's positive = %v is not a valid log-probability", name, i, v)
		}
	}
	return x, nil
}

// validLog reports whether v is a log-probability: not NaN nor +Inf, nor −Inf unless negInf.
func validLog(v float64, negInf bool) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 1) && (negInf || !math.IsInf(v, -1))
}

// build fills p for an r×c score matrix from the resolved settings s and step st, whose geometry
// must be g, the loss's.
func (p *plan) build(s *Settings, g candidates.Geometry, st *candidates.Step, b, c int) error {
	if st.Geometry != g {
		return fmt.Errorf("losses: the step is of %v, the loss was made for %v", st.Geometry, g)
	}
	p.b, p.c, p.layout, p.perRow, p.variant = b, c, g.Layout, g.PerRow > 0, s.Variant
	p.posCol = nil
	if g.Layout == candidates.Corpus {
		if err := checkLen("the step's PosCol", st.PosCol, b, "R"); err != nil {
			return err
		}
		for i, j := range st.PosCol {
			if j < 0 || j >= c {
				return fmt.Errorf("losses: the step's PosCol[%d] = %d is outside [0, %d)", i, j, c)
			}
		}
		p.posCol = st.PosCol
	}
	if err := p.findPadding(st); err != nil {
		return err
	}
	p.rowItem, p.colItem = nil, nil
	if s.RemoveAccidentalHits {
		if err := checkLen("the step's RowItem", st.RowItem, b, "R"); err != nil {
			return err
		}
		n, dim := p.entries()
		if err := checkLen("the step's ColItem", st.ColItem, n, dim); err != nil {
			return err
		}
		p.rowItem, p.colItem = st.RowItem, st.ColItem
	}
	p.dup = nil
	if s.subtractsLogQ() && s.LogQProbability == LogQProbabilityDedupe {
		p.markDuplicates()
	}
	p.masks = p.rowItem != nil || p.nPadCols > 0

	p.scale = 1.0
	if s.Reduction == ReductionMean {
		p.scale = 1 / float64(p.nValid)
	}
	if err := p.weights(st); err != nil {
		return err
	}

	p.invTau = 1 / s.Temperature
	p.colOff, p.rowOff, p.posOff, p.colW, p.rowW = nil, nil, nil, nil, nil
	p.gramCoef, p.gramFrom, p.gramW = 0, gramianFrom(g.Layout), nil
	p.gramCols = c - p.gramFrom
	for j := p.gramFrom; j < len(p.padCols); j++ {
		if p.padCol(j) {
			p.gramCols--
		}
	}
	logM := math.Log(float64(p.negatives()))

	switch s.Variant {
	case VariantPlain, VariantFull:
		p.kind = kindSoftmax
	case VariantNegativeSampling:
		p.kind = kindLogistic
	case VariantLogQ, VariantNCE, VariantSampledLogistic:
		p.kind = kindSoftmax
		if s.Variant != VariantLogQ {
			p.kind = kindLogistic
		}
		if err := p.logQOffsets(s, st, logM); err != nil {
			return err
		}
	case VariantLogitAdjusted:
		p.kind = kindSoftmax
		col, err := p.colLogs(st, candidates.LogPrior, true)
		if err != nil {
			return err
		}
		pos, err := p.rowLogs(st, candidates.LogPrior, false)
		if err != nil {
			return err
		}
		p.colOff = take(&p.bufCol, len(col))
		for j, v := range col {
			p.colOff[j] = s.LATau * v
		}
		p.posOff = take(&p.bufPos, b)
		for i, v := range pos {
			p.posOff[i] = s.LATau * v
		}
	case VariantConstant, VariantImportance, VariantRelative, VariantTail:
		if err := p.rawatLogWeights(s, st, logM); err != nil {
			return err
		}
	case VariantMSEGramian:
		p.kind = kindMSE
		p.invTau = 1
		p.gramCoef = p.scale * s.GramianWeight / float64(p.gramCols)
		if g.Layout != candidates.Corpus {
			if err := p.gramianWeights(st); err != nil {
				return err
			}
		}
	case VariantLogIn, VariantLogOut:
		// No fused kernel: the plan checks the log Q the expression subtracts, if any.
		p.kind = kindSoftmax
		if s.subtractsLogQ() {
			if err := p.logQOffsets(s, st, logM); err != nil {
				return err
			}
		}
	case VariantLogQCorrected:
		// No fused kernel: the plan only checks what the expression reads.
		if _, err := p.colLogs(st, candidates.LogQ, false); err != nil {
			return err
		}
		if _, err := p.rowLogs(st, candidates.LogQ, false); err != nil {
			return err
		}
	default:
		// A registered variant: the plan derives its columns and masks only.
		if _, ok := registered(s.Variant); !ok {
			return fmt.Errorf("losses: variant %q not resolved", s.Variant)
		}
	}

	if s.CorrectAt == CorrectAtScores {
		for _, off := range [][]float64{p.colOff, p.rowOff, p.posOff} {
			for k := range off {
				off[k] *= p.invTau
			}
		}
	}
	return nil
}

// findPadding sets valid and nValid from the step's rows (Geometry.Padded): a row whose
// positive is candidates.NoItem is padding. A step whose every row is padding has no loss to
// take the mean of and is an error. It marks the shared columns masked from every row (padCols,
// where maskedColumns): a padding row's positive (layout diagonal), and a shared column without
// an item: a memory column holding an earlier step's padding row, or an empty drawn column
// (Geometry.Unfilled).
func (p *plan) findPadding(st *candidates.Step) error {
	g := st.Geometry
	p.valid, p.nValid = nil, p.b
	p.padCols, p.nPadCols = nil, 0
	if g.Padded {
		if err := checkLen("the step's RowItem", st.RowItem, p.b, "R"); err != nil {
			return err
		}
		p.bufValid = reuse.Grow(p.bufValid, p.b)
		p.valid, p.nValid = p.bufValid, 0
		for i, it := range st.RowItem {
			p.valid[i] = it != candidates.NoItem
			if p.valid[i] {
				p.nValid++
			}
		}
		if p.nValid == 0 {
			return fmt.Errorf("losses: every row of the step is padding (%v)", g)
		}
	}
	if !maskedColumns(g) {
		return nil
	}
	// The shared columns: under diagonal the R positives, then the drawn and memory columns;
	// under first each row's own positive (column 0, never masked), then the drawn columns.
	shared := p.c - g.PerRow
	if len(st.ColItem) < shared {
		return fmt.Errorf("losses: the step's ColItem has %d values, fewer than its %d shared columns", len(st.ColItem), shared)
	}
	p.bufPadCs = reuse.Grow(p.bufPadCs, shared)
	p.padCols = p.bufPadCs
	for j := range shared {
		switch {
		case p.layout == candidates.First && j == 0:
			p.padCols[j] = false
		case p.layout == candidates.Diagonal && j < p.b:
			p.padCols[j] = p.padding(j)
		default:
			p.padCols[j] = st.ColItem[j] == candidates.NoItem
		}
		if p.padCols[j] {
			p.nPadCols++
		}
	}
	return nil
}

// maskedColumns reports whether steps of geometry g may have shared columns masked from every
// row, which change from step to step: a padding row's positive or a memory column holding one
// (layout diagonal with padding), an empty drawn column (Unfilled).
func maskedColumns(g candidates.Geometry) bool {
	return g.Padded && g.Layout == candidates.Diagonal || g.Unfilled && g.Layout != candidates.Corpus
}

// weights sets coef[i] = r_i·scale from the step's rewards (1 where it has none, or where they
// are nil), 0 for a padding row.
func (p *plan) weights(st *candidates.Step) error {
	p.coef = reuse.Grow(p.coef, p.b)
	rewards := st.Row(candidates.Rewards)
	if rewards == nil {
		for i := range p.coef {
			p.coef[i] = p.scale
		}
	} else {
		if err := checkLen("side input rewards", rewards, p.b, "R"); err != nil {
			return err
		}
		for i, r := range rewards {
			if p.padding(i) {
				continue
			}
			if math.IsNaN(r) || math.IsInf(r, 0) {
				return fmt.Errorf("losses: the reward of row %d = %v is not finite", i, r)
			}
			if r < 0 {
				return fmt.Errorf("losses: the reward of row %d = %v is negative: a reward weights its example's loss (Yi et al. eq. 4, r ∈ [0, 1]) and a negative one would reverse its gradient", i, r)
			}
			p.coef[i] = r * p.scale
		}
	}
	for i := range p.coef {
		if p.padding(i) {
			p.coef[i] = 0
		}
	}
	return nil
}

// logQOffsets sets the −log Q corrections of logq, nce and sampled_logistic:
// colOff[j] = −log Q_j and posOff[i] = −log Q_p (unless uncorrected_positive),
// with Q = m·q (expected_count: side input log_q, m = C−1) or Q = p̂
// (inclusion and dedupe: side input log_p).
func (p *plan) logQOffsets(s *Settings, st *candidates.Step, logM float64) error {
	name, shift := candidates.LogP, 0.0
	if s.LogQProbability == LogQProbabilityExpectedCount {
		name, shift = candidates.LogQ, logM
	}
	col, err := p.colLogs(st, name, false)
	if err != nil {
		return err
	}
	p.colOff = take(&p.bufCol, len(col))
	for j, v := range col {
		p.colOff[j] = -(shift + v)
	}
	if s.UncorrectedPositive {
		return nil
	}
	pos, err := p.rowLogs(st, name, false)
	if err != nil {
		return err
	}
	p.posOff = take(&p.bufPos, p.b)
	for i, v := range pos {
		p.posOff[i] = -(shift + v)
	}
	return nil
}

// gramianWeights sets gramW[j] = 1/(M·q_j) for the drawn columns, which are
// drawn ∝ q: Σ_j s_ij²/(M·q_j) over C columns is then, in expectation,
// C·(1/M)·Σ_y s_iy², so that the Gramian term estimates the uniform Gramian
// ⟨UᵀU, VᵀV⟩/M over the corpus of Krichene et al. rather than a
// popularity-weighted one. (A uniform sampler's columns have q = 1/M:
// weight 1.)
func (p *plan) gramianWeights(st *candidates.Step) error {
	logQ, err := p.colLogs(st, candidates.LogQ, false)
	if err != nil {
		return err
	}
	if st.Items < 1 {
		return fmt.Errorf("losses: the step's Items = %d, mse_gramian needs the corpus size M ≥ 1 to weight in-batch columns by 1/(M·q)", st.Items)
	}
	logM := math.Log(float64(st.Items))
	p.gramW = take(&p.bufGramW, len(logQ))
	for j, v := range logQ {
		p.gramW[j] = math.Exp(-logM - v)
	}
	return nil
}

// markDuplicates sets dup[j] for every column whose item (colItem) already
// fills an earlier column (of the same row, under perRow).
func (p *plan) markDuplicates() {
	n, _ := p.entries()
	p.dup = reuse.Grow(p.bufDup, n)
	p.bufDup = p.dup
	if p.first == nil {
		p.first = make(map[int64]struct{}, p.c)
	}
	for k, it := range p.colItem {
		if k%p.c == 0 {
			clear(p.first)
		}
		_, seen := p.first[it]
		p.dup[k] = seen
		p.first[it] = struct{}{}
	}
}

// rawatLogWeights sets log w_yy' = colOff[j] + rowOff[i] of Rawat et al.'s
// Table 1 and eq. (14): constant −log m; importance −log m − log q_y';
// relative log q_y − log q_y'; tail log π_y' − log m − log q_y' − log π_y.
// In softmax form they shift the negatives' logits (w·e^f = e^{f + log w});
// in decoupled form they become the multiplicative weights colW·rowW.
func (p *plan) rawatLogWeights(s *Settings, st *candidates.Step, logM float64) error {
	b := p.b
	n, _ := p.entries()
	var logQ []float64
	if s.Variant != VariantConstant {
		var err error
		if logQ, err = p.colLogs(st, candidates.LogQ, false); err != nil {
			return err
		}
	}
	p.colOff = take(&p.bufCol, n)
	switch s.Variant {
	case VariantConstant:
		for j := range p.colOff {
			p.colOff[j] = -logM
		}
	case VariantImportance:
		for j, v := range logQ {
			p.colOff[j] = -logM - v
		}
	case VariantRelative:
		posQ, err := p.rowLogs(st, candidates.LogQ, false)
		if err != nil {
			return err
		}
		for j, v := range logQ {
			p.colOff[j] = -v
		}
		p.rowOff = take(&p.bufRow, b)
		copy(p.rowOff, posQ)
	case VariantTail:
		prior, err := p.colLogs(st, candidates.LogPrior, true)
		if err != nil {
			return err
		}
		posPrior, err := p.rowLogs(st, candidates.LogPrior, false)
		if err != nil {
			return err
		}
		for j, v := range logQ {
			p.colOff[j] = prior[j] - logM - v
		}
		p.rowOff = take(&p.bufRow, b)
		for i, v := range posPrior {
			p.rowOff[i] = -v
		}
	}
	if s.Form != FormDecoupled {
		p.kind = kindSoftmax
		return nil
	}
	p.kind = kindLogistic
	p.colW = take(&p.bufColW, n)
	for j, v := range p.colOff {
		p.colW[j] = math.Exp(v)
	}
	if p.rowOff != nil {
		p.rowW = take(&p.bufRowW, b)
		for i, v := range p.rowOff {
			p.rowW[i] = math.Exp(v)
		}
	}
	p.colOff, p.rowOff = nil, nil
	return nil
}

// gramianFrom is the first Gramian column of mse_gramian: all C columns, except
// under First, where they are the m shared negatives (columns 1..m).
func gramianFrom(layout candidates.Layout) int {
	if layout == candidates.First {
		return 1
	}
	return 0
}

// appendMasked appends to dst the flat index i·C + j of every entry masked(i, j, pos(i)), row by
// row (an entry may be listed twice), in O(C + B + masked entries) for shared columns: the
// columns of each item are listed once (colHead, colPrev), and the padding columns once.
func (p *plan) appendMasked(dst []int) []int {
	if !p.masks {
		return dst
	}
	if p.rowItem != nil && p.perRow { // each row its own columns: O(B·C), as the step's side information is
		for i := range p.b {
			for j := range p.c {
				if p.masked(i, j, p.pos(i)) {
					dst = append(dst, i*p.c+j)
				}
			}
		}
		return dst
	}
	if p.rowItem != nil {
		dst = p.appendHits(dst)
	}
	if p.nPadCols == 0 {
		return dst
	}
	p.dupCols = p.dupCols[:0] // the padding columns
	for j := range p.padCols {
		if p.padCol(j) {
			p.dupCols = append(p.dupCols, j)
		}
	}
	for i := range p.b {
		for _, j := range p.dupCols {
			if j != p.pos(i) {
				dst = append(dst, i*p.c+j)
			}
		}
	}
	return dst
}

// appendHits appends the accidental hits and dedupe's copies of shared columns (appendMasked).
func (p *plan) appendHits(dst []int) []int {
	if p.colHead == nil {
		p.colHead = make(map[int64]int, p.c)
	}
	clear(p.colHead)
	p.colPrev = reuse.Grow(p.colPrev, p.c)
	p.dupCols = p.dupCols[:0]
	for j, it := range p.colItem {
		p.colPrev[j] = -1
		if h, ok := p.colHead[it]; ok {
			p.colPrev[j] = h
		}
		p.colHead[it] = j
		if p.dup != nil && p.dup[j] {
			p.dupCols = append(p.dupCols, j)
		}
	}
	for i, it := range p.rowItem {
		pc := p.pos(i)
		h, ok := p.colHead[it]
		for j := h; ok && j >= 0; j = p.colPrev[j] {
			if j != pc {
				dst = append(dst, i*p.c+j)
			}
		}
		for _, j := range p.dupCols {
			if j != pc && p.colItem[j] != it { // a column of the row's own item is listed above
				dst = append(dst, i*p.c+j)
			}
		}
	}
	return dst
}

// masked reports whether column j of row i is removed from the row: an accidental hit, (dedupe)
// a further copy of an item, or a padding row's positive. The positive never is.
func (p *plan) masked(i, j, pc int) bool {
	if !p.masks || j == pc {
		return false
	}
	if p.padCol(j) {
		return true
	}
	if p.rowItem == nil {
		return false
	}
	if p.perRow {
		j += i * p.c
	}
	return p.colItem[j] == p.rowItem[i] || (p.dup != nil && p.dup[j])
}
