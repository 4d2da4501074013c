package losses

import (
	"fmt"
	"math"
	"runtime"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
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

// plan is everything a row kernel needs, built from the settings and the Step
// at every execution. Its slices are reused from one execution to the next.
type plan struct {
	kind   kind
	b, c   int
	layout Layout
	perRow bool // the column slices below hold B·C entries, row i's at i·C (Settings.PerRow)
	posCol []int
	invTau float64
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
	// coef[i] = r_i·scale, scale = 1/B (mean) or 1 (sum).
	coef []float64
	// Gramian term of mse_gramian: gramCoef·Σ_{i, j ≥ gramFrom} gramW[j]·s_ij²
	// (gramW nil: weight 1). The Gramian columns j ≥ gramFrom are set for
	// every variant, gramW for mse_gramian (the binding gives both to
	// expressions).
	gramCoef        float64
	gramFrom        int
	gramW, bufGramW []float64
	// Gradient representation left by execute (len b): see execute.
	rowScale, posAdd []float64
}

func (p *plan) pos(i int) int {
	switch p.layout {
	case Diagonal:
		return i
	case First:
		return 0
	}
	return p.posCol[i]
}

// entries is the length of the Step's column slices: C, or B·C per row.
func (p *plan) entries() (int, string) {
	if p.perRow {
		return p.b * p.c, "B·C"
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

// checkCols checks a per-column log-probability slice (checkLogs with the plan's length).
func (p *plan) checkCols(name string, x []float64, allowNegInf bool) error {
	n, dim := p.entries()
	return checkLogs(name, x, n, dim, allowNegInf)
}

// grow returns a slice of length n, reusing buf when it is large enough.
func grow[E any](buf []E, n int) []E {
	if cap(buf) < n {
		return make([]E, n)
	}
	return buf[:n]
}

// growRows returns buf with n rows of m values, each row reused where it is long enough: the
// scratch rows of the parts of a kernel's rows.
func growRows(buf [][]float64, n, m int) [][]float64 {
	buf = grow(buf, n)
	for w := range buf {
		buf[w] = grow(buf[w], m)
	}
	return buf
}

// take resizes *buf to n and returns it.
func take(buf *[]float64, n int) []float64 {
	*buf = grow(*buf, n)
	return *buf
}

func checkLen[E any](name string, x []E, want int, dim string) error {
	if len(x) != want {
		return fmt.Errorf("losses: step.%s has length %d, want %s = %d", name, len(x), dim, want)
	}
	return nil
}

// checkLogs checks the length of a log-probability slice and that no entry is
// NaN or +Inf, nor -Inf unless allowNegInf.
func checkLogs(name string, x []float64, want int, dim string, allowNegInf bool) error {
	if err := checkLen(name, x, want, dim); err != nil {
		return err
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 1) || (!allowNegInf && math.IsInf(v, -1)) {
			return fmt.Errorf("losses: step.%s[%d] = %v is not a valid log-probability", name, k, v)
		}
	}
	return nil
}

// build fills p for a b×c score matrix from the resolved settings s and step st.
func (p *plan) build(s *Settings, st *Step, layout Layout, b, c int) error {
	if st.Layout != layout {
		return fmt.Errorf("losses: step.Layout is %v, variant %s with sampler %q needs %v", st.Layout, s.Variant, s.Sampler, layout)
	}
	p.b, p.c, p.layout, p.perRow = b, c, layout, s.PerRow
	p.posCol = nil
	if layout == Indexed {
		if err := checkLen("PosCol", st.PosCol, b, "B"); err != nil {
			return err
		}
		for i, j := range st.PosCol {
			if j < 0 || j >= c {
				return fmt.Errorf("losses: step.PosCol[%d] = %d is outside [0, %d)", i, j, c)
			}
		}
		p.posCol = st.PosCol
	}
	p.rowItem, p.colItem = nil, nil
	if s.RemoveAccidentalHits {
		if err := checkLen("RowItem", st.RowItem, b, "B"); err != nil {
			return err
		}
		n, dim := p.entries()
		if err := checkLen("ColItem", st.ColItem, n, dim); err != nil {
			return err
		}
		p.rowItem, p.colItem = st.RowItem, st.ColItem
	}
	p.dup = nil
	if s.subtractsLogQ() && s.LogQProbability == LogQProbabilityDedupe {
		p.markDuplicates()
	}

	scale := 1.0
	if s.Reduction == ReductionMean {
		scale = 1 / float64(b)
	}
	p.coef = grow(p.coef, b)
	if st.Rewards == nil {
		for i := range p.coef {
			p.coef[i] = scale
		}
	} else {
		if err := checkLen("Rewards", st.Rewards, b, "B"); err != nil {
			return err
		}
		for i, r := range st.Rewards {
			if math.IsNaN(r) || math.IsInf(r, 0) {
				return fmt.Errorf("losses: step.Rewards[%d] = %v is not finite", i, r)
			}
			if r < 0 {
				return fmt.Errorf("losses: step.Rewards[%d] = %v is negative: a reward weights its example's loss (Yi et al. eq. 4, r ∈ [0, 1]) and a negative one would reverse its gradient", i, r)
			}
			p.coef[i] = r * scale
		}
	}

	p.invTau = 1 / s.Temperature
	p.colOff, p.rowOff, p.posOff, p.colW, p.rowW = nil, nil, nil, nil, nil
	p.gramCoef, p.gramFrom, p.gramW = 0, gramianFrom(layout), nil
	logM := math.Log(float64(NegativeCount(c)))

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
		if err := p.checkCols("LogPrior", st.LogPrior, true); err != nil {
			return err
		}
		if err := checkLogs("PosLogPrior", st.PosLogPrior, b, "B", false); err != nil {
			return err
		}
		p.colOff = take(&p.bufCol, len(st.LogPrior))
		for j, v := range st.LogPrior {
			p.colOff[j] = s.LATau * v
		}
		p.posOff = take(&p.bufPos, b)
		for i, v := range st.PosLogPrior {
			p.posOff[i] = s.LATau * v
		}
	case VariantConstant, VariantImportance, VariantRelative, VariantTail:
		if err := p.rawatLogWeights(s, st, logM); err != nil {
			return err
		}
	case VariantMSEGramian:
		p.kind = kindMSE
		p.invTau = 1
		p.gramCoef = scale * s.GramianWeight / float64(c-p.gramFrom)
		if layout != Indexed {
			if err := p.gramianWeights(st); err != nil {
				return err
			}
		}
	case VariantLogQCorrected:
		// No fused kernel: the plan only checks what the expression reads.
		if err := p.checkCols("LogQ", st.LogQ, false); err != nil {
			return err
		}
		if err := checkLogs("PosLogQ", st.PosLogQ, b, "B", false); err != nil {
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

// logQOffsets sets the −log Q corrections of logq, nce and sampled_logistic:
// colOff[j] = −log Q_j and posOff[i] = −log Q_p (unless uncorrected_positive),
// with Q = m·q (expected_count: Step.LogQ, PosLogQ, m = C−1) or Q = p̂
// (inclusion and dedupe: Step.LogP, PosLogP).
func (p *plan) logQOffsets(s *Settings, st *Step, logM float64) error {
	colName, posName, col, pos, shift := "LogP", "PosLogP", st.LogP, st.PosLogP, 0.0
	if s.LogQProbability == LogQProbabilityExpectedCount {
		colName, posName, col, pos, shift = "LogQ", "PosLogQ", st.LogQ, st.PosLogQ, logM
	}
	if err := p.checkCols(colName, col, false); err != nil {
		return err
	}
	p.colOff = take(&p.bufCol, len(col))
	for j, v := range col {
		p.colOff[j] = -(shift + v)
	}
	if s.UncorrectedPositive {
		return nil
	}
	if err := checkLogs(posName, pos, p.b, "B", false); err != nil {
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
func (p *plan) gramianWeights(st *Step) error {
	if err := p.checkCols("LogQ", st.LogQ, false); err != nil {
		return err
	}
	if st.Items < 1 {
		return fmt.Errorf("losses: step.Items = %d, mse_gramian needs the corpus size M ≥ 1 to weight in-batch columns by 1/(M·q)", st.Items)
	}
	logM := math.Log(float64(st.Items))
	p.gramW = take(&p.bufGramW, len(st.LogQ))
	for j, v := range st.LogQ {
		p.gramW[j] = math.Exp(-logM - v)
	}
	return nil
}

// markDuplicates sets dup[j] for every column whose item (colItem) already
// fills an earlier column (of the same row, under perRow).
func (p *plan) markDuplicates() {
	n, _ := p.entries()
	p.dup = grow(p.bufDup, n)
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
func (p *plan) rawatLogWeights(s *Settings, st *Step, logM float64) error {
	b := p.b
	n, _ := p.entries()
	if s.Variant != VariantConstant {
		if err := p.checkCols("LogQ", st.LogQ, false); err != nil {
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
		for j, v := range st.LogQ {
			p.colOff[j] = -logM - v
		}
	case VariantRelative:
		if err := checkLogs("PosLogQ", st.PosLogQ, b, "B", false); err != nil {
			return err
		}
		for j, v := range st.LogQ {
			p.colOff[j] = -v
		}
		p.rowOff = take(&p.bufRow, b)
		copy(p.rowOff, st.PosLogQ)
	case VariantTail:
		if err := p.checkCols("LogPrior", st.LogPrior, true); err != nil {
			return err
		}
		if err := checkLogs("PosLogPrior", st.PosLogPrior, b, "B", false); err != nil {
			return err
		}
		for j, v := range st.LogQ {
			p.colOff[j] = st.LogPrior[j] - logM - v
		}
		p.rowOff = take(&p.bufRow, b)
		for i, v := range st.PosLogPrior {
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
func gramianFrom(layout Layout) int {
	if layout == First {
		return 1
	}
	return 0
}

// floats are the element types of the score matrix.
type floats interface{ ~float32 | ~float64 }

// parallelMin is the number of score entries from which a part of the rows is worth a goroutine.
const parallelMin = 1 << 14

// defaultWorkers is the number of goroutines a loss node uses.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// execute evaluates the loss of the b×c row-major scores s under plan p and,
// when g is not nil, fills the gradient representation: ∂L/∂s_ij =
// rowScale[i]·g_ij + [j = pos(i)]·posAdd[i] (see gradInPlace). Each row is
// computed sequentially by one goroutine and the row losses are summed in row
// order, so the result does not depend on the number of workers.
func execute[T floats](p *plan, s, g []T, rowLoss []float64, scratch [][]float64, workers int) float64 {
	if g != nil {
		p.rowScale = grow(p.rowScale, p.b)
		p.posAdd = grow(p.posAdd, p.b)
	}
	parallel.Split(p.b, parallel.Parts(p.b*p.c, parallelMin, workers), func(w, lo, hi int) {
		switch p.kind {
		case kindSoftmax:
			softmaxRows(p, s, g, rowLoss, lo, hi, scratch[w])
		case kindLogistic:
			logisticRows(p, s, g, rowLoss, lo, hi)
		case kindMSE:
			mseRows(p, s, g, rowLoss, lo, hi)
		}
	})
	total := 0.0
	for _, l := range rowLoss[:p.b] {
		total += l
	}
	return total
}

// gradInPlace turns the representation g, rowScale, posAdd that execute left
// in p into gin·∂L/∂s, in place.
func gradInPlace[T floats](p *plan, g []T, gin float64, workers int) {
	c := p.c
	parallel.Split(p.b, parallel.Parts(p.b*c, parallelMin, workers), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			d := g[i*c : (i+1)*c]
			pc := p.pos(i)
			dp := T(gin * (p.rowScale[i]*float64(d[pc]) + p.posAdd[i]))
			k := [1]T{T(gin * p.rowScale[i])}
			bcastRow(d, d, k[:], true)
			d[pc] = dp
		}
	})
}

// rowMax is the largest entry of z.
func rowMax(z []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		if v > mx {
			mx = v
		}
	}
	return mx
}

// softmaxRows: ℓ_i = coef_i·(LSE_j z_ij − z_ip). The gradient is stored as
// g_ij = e^{z_ij − max}, rowScale = coef_i/(τ·Σ_j e^{z_ij − max}), posAdd = −coef_i/τ.
func softmaxRows[T floats](p *plan, s, g []T, rowLoss []float64, lo, hi int, z []float64) {
	c, invTau := p.c, p.invTau
	z = z[:c]
	for i := lo; i < hi; i++ {
		row := s[i*c : (i+1)*c]
		pc := p.pos(i)
		ro := 0.0
		if p.rowOff != nil {
			ro = p.rowOff[i]
		}
		mx := math.Inf(-1)
		if p.colOff != nil {
			off := colsOf(p, p.colOff, i)
			for j, v := range row {
				x := float64(v)*invTau + off[j] + ro
				z[j] = x
				if x > mx {
					mx = x
				}
			}
		} else {
			for j, v := range row {
				x := float64(v)*invTau + ro
				z[j] = x
				if x > mx {
					mx = x
				}
			}
		}
		stale := z[pc]
		zp := float64(row[pc]) * invTau
		if p.posOff != nil {
			zp += p.posOff[i]
		}
		z[pc] = zp
		switch {
		case p.rowItem != nil:
			for j := range z {
				if p.masked(i, j, pc) {
					z[j] = math.Inf(-1)
				}
			}
			mx = rowMax(z)
		case zp >= mx:
			mx = zp
		case stale == mx:
			mx = rowMax(z)
		}
		// others = Σ_{j≠p} e^{z_j − max}, kept apart from the positive's term so
		// that a row the positive dominates (max = z_p) gets its loss as
		// log1p(others) = log(1 + Σ_{j≠p} e^{z_j − z_p}), exact to rounding
		// however small, rather than as log(1 + others) rounded to 0.
		ep := simd.ExpNeg(zp - mx)
		var gr []T
		if g != nil {
			gr = g[i*c : (i+1)*c]
			gr[pc] = T(ep)
		}
		others := expSum(z[:pc], gr, mx) + expSum(z[pc+1:], gr[min(pc+1, len(gr)):], mx)
		if g != nil {
			p.rowScale[i] = p.coef[i] * invTau / (others + ep)
			p.posAdd[i] = -p.coef[i] * invTau
		}
		if zp >= mx {
			rowLoss[i] = p.coef[i] * math.Log1p(others)
		} else {
			rowLoss[i] = p.coef[i] * ((mx - zp) + math.Log(others+ep))
		}
	}
}

// expSum returns Σ_k e^{z_k − mx}, added in the order of k, and, when g is not nil, stores each
// term in g[k]; it overwrites z with the terms.
func expSum[T floats](z []float64, g []T, mx float64) float64 {
	sum := simd.ExpNegShift(z, z, mx)
	if g != nil {
		narrow(g[:len(z)], z)
	}
	return sum
}

// widenMax sets dst[k] = float64(x[k]) and returns the largest of m and the x[k] (NaNs
// skipped).
func widenMax[T floats](dst []float64, x []T, m float64) float64 {
	if x32, ok := any(x).([]float32); ok {
		return simd.WidenMax(dst, x32, m)
	}
	for k, v := range x {
		dst[k] = float64(v)
		if dst[k] > m {
			m = dst[k]
		}
	}
	return m
}

// mulWide sets dst[k] = T(float64(x[k])·c).
func mulWide[T floats](dst, x []T, c float64) {
	if d, ok := any(dst).([]float32); ok {
		simd.MulWide(d, any(x).([]float32), c)
		return
	}
	for k, v := range x {
		dst[k] = T(float64(v) * c)
	}
}

// narrow sets dst[k] = T(x[k]).
func narrow[T floats](dst []T, x []float64) {
	switch d := any(dst).(type) {
	case []float32:
		simd.Narrow(d, x)
	case []float64:
		copy(d, x)
	}
}

// softplusSigmoid returns log(1+e^x) and σ(x) = 1/(1+e^{−x}), both stable for any x.
func softplusSigmoid(x float64) (sp, sig float64) {
	e := simd.ExpNeg(-math.Abs(x))
	return max(x, 0) + math.Log1p(e), sigmoidFrom(x, e)
}

// sigmoidFrom is σ(x) given e = e^{−|x|}.
func sigmoidFrom(x, e float64) float64 {
	if x >= 0 {
		return 1 / (1 + e)
	}
	return e / (1 + e)
}

// logisticRows: ℓ_i = coef_i·(softplus(−z_ip) + Σ_{j≠p unmasked} w_ij·softplus(z_ij));
// the gradient is stored in full (rowScale 1, posAdd 0).
func logisticRows[T floats](p *plan, s, g []T, rowLoss []float64, lo, hi int) {
	c, invTau := p.c, p.invTau
	for i := lo; i < hi; i++ {
		row := s[i*c : (i+1)*c]
		var gr []T
		if g != nil {
			gr = g[i*c : (i+1)*c]
			p.rowScale[i], p.posAdd[i] = 1, 0
		}
		pc := p.pos(i)
		ro, rw := 0.0, 1.0
		if p.rowOff != nil {
			ro = p.rowOff[i]
		}
		if p.rowW != nil {
			rw = p.rowW[i]
		}
		k := p.coef[i] * invTau
		acc := 0.0
		colOff, colW := colsOf(p, p.colOff, i), colsOf(p, p.colW, i)
		for j, v := range row {
			if j == pc {
				continue
			}
			if p.masked(i, j, pc) {
				if gr != nil {
					gr[j] = 0
				}
				continue
			}
			x := float64(v)*invTau + ro
			if colOff != nil {
				x += colOff[j]
			}
			w := rw
			if colW != nil {
				w *= colW[j]
			}
			sp, sig := softplusSigmoid(x)
			acc += w * sp
			if gr != nil {
				gr[j] = T(k * w * sig)
			}
		}
		x := float64(row[pc]) * invTau
		if p.posOff != nil {
			x += p.posOff[i]
		}
		sp, sig := softplusSigmoid(-x)
		acc += sp
		if gr != nil {
			gr[pc] = T(-k * sig)
		}
		rowLoss[i] = p.coef[i] * acc
	}
}

// appendMasked appends to dst the flat index i·C + j of every entry masked(i, j, pos(i)), row by
// row, in O(C + B + masked entries) for shared columns: the columns of each item are listed once
// (colHead, colPrev).
func (p *plan) appendMasked(dst []int) []int {
	if p.rowItem == nil {
		return dst
	}
	if p.perRow { // each row its own columns: O(B·C), as the step's side information is
		for i := range p.b {
			for j := range p.c {
				if p.masked(i, j, p.pos(i)) {
					dst = append(dst, i*p.c+j)
				}
			}
		}
		return dst
	}
	if p.colHead == nil {
		p.colHead = make(map[int64]int, p.c)
	}
	clear(p.colHead)
	p.colPrev = grow(p.colPrev, p.c)
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

// masked reports whether column j of row i is removed from the row: an
// accidental hit, or (dedupe) a further copy of an item. The positive never is.
func (p *plan) masked(i, j, pc int) bool {
	if p.rowItem == nil || j == pc {
		return false
	}
	if p.perRow {
		j += i * p.c
	}
	return p.colItem[j] == p.rowItem[i] || (p.dup != nil && p.dup[j])
}

// mseRows: ℓ_i = coef_i·(s_ip − 1)² + gramCoef·Σ_{j ≥ gramFrom} gramW_j·s_ij²;
// the gradient is stored in full.
func mseRows[T floats](p *plan, s, g []T, rowLoss []float64, lo, hi int) {
	c := p.c
	var gramW []float64
	w := func(j int) float64 {
		if gramW == nil {
			return p.gramCoef
		}
		return p.gramCoef * gramW[j]
	}
	for i := lo; i < hi; i++ {
		gramW = colsOf(p, p.gramW, i)
		row := s[i*c : (i+1)*c]
		pc := p.pos(i)
		gram := 0.0
		for j := p.gramFrom; j < c; j++ {
			v := float64(row[j])
			gram += w(j) * v * v
		}
		d := float64(row[pc]) - 1
		rowLoss[i] = p.coef[i]*d*d + gram
		if g == nil {
			continue
		}
		p.rowScale[i], p.posAdd[i] = 1, 0
		gr := g[i*c : (i+1)*c]
		for j, v := range row {
			if j < p.gramFrom {
				gr[j] = 0
				continue
			}
			gr[j] = T(2 * w(j) * float64(v))
		}
		gp := 2 * p.coef[i] * d
		if pc >= p.gramFrom {
			gp += 2 * w(pc) * float64(row[pc])
		}
		gr[pc] = T(gp)
	}
}
