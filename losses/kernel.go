package losses

import (
	"math"
	"runtime"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/simd"
)

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
		p.rowScale = reuse.Grow(p.rowScale, p.b)
		p.posAdd = reuse.Grow(p.posAdd, p.b)
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
		if p.padding(i) {
			skipRow(p, g, rowLoss, i)
			continue
		}
		row := s[i*c : (i+1)*c]
		pc := p.pos(i)
		ro := 0.0
		if p.rowOff != nil {
			ro = p.rowOff[i]
		}
		mx := simd.AffineMax(z, row, invTau, colsOf(p, p.colOff, i), ro, math.Inf(-1))
		stale := z[pc]
		zp := float64(row[pc]) * invTau
		if p.posOff != nil {
			zp += p.posOff[i]
		}
		z[pc] = zp
		switch {
		case p.masks:
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
// term in g[k]; it may overwrite z with the terms.
func expSum[T floats](z []float64, g []T, mx float64) float64 {
	if g32, ok := any(g).([]float32); ok && g != nil {
		return simd.ExpNegShiftTo(g32[:len(z)], z, mx)
	}
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
		if p.padding(i) {
			skipRow(p, g, rowLoss, i)
			continue
		}
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

// mseRows: ℓ_i = coef_i·(s_ip − 1)² + gramCoef·Σ_{j ≥ gramFrom} gramW_j·s_ij² over the columns
// that are no padding row's; the gradient is stored in full.
func mseRows[T floats](p *plan, s, g []T, rowLoss []float64, lo, hi int) {
	c := p.c
	var gramW []float64
	w := func(j int) float64 {
		if p.padCol(j) {
			return 0
		}
		if gramW == nil {
			return p.gramCoef
		}
		return p.gramCoef * gramW[j]
	}
	for i := lo; i < hi; i++ {
		if p.padding(i) {
			skipRow(p, g, rowLoss, i)
			continue
		}
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

// skipRow gives padding row i no loss and no gradient.
func skipRow[T floats](p *plan, g []T, rowLoss []float64, i int) {
	rowLoss[i] = 0
	if g != nil {
		clear(g[i*p.c : (i+1)*p.c])
		p.rowScale[i], p.posAdd[i] = 0, 0
	}
}
