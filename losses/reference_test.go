package losses

import (
	"math"

	"github.com/samplingbias/workbench/candidates"
)

// This file is the independent plain-Go float64 reference: every loss written
// straight from its equation, row by row, without the plan/kernel machinery of
// the package. Settings must be resolved. A padding row (the step's geometry is
// padded and the row's positive is candidates.NoItem) has no loss and leaves the
// mean's denominator, and under layout diagonal its column is no row's negative.

// refPos is the positive column of row i.
func refPos(st *candidates.Step, i int) int {
	switch st.Geometry.Layout {
	case candidates.Diagonal:
		return i
	case candidates.First:
		return 0
	}
	return st.PosCol[i]
}

// refCol is the index of column j of row i in the step's per-column side inputs: j,
// or i·C + j when each row has its own columns (Geometry.PerRow).
func refCol(st *candidates.Step, i, j, c int) int {
	if st.Geometry.PerRow > 0 {
		return i*c + j
	}
	return j
}

// refPadCol reports whether column j is masked from every row: a padding row's positive (layout
// diagonal), or a shared column without an item (a memory column holding a padding row's
// positive, an empty drawn column of an Unfilled geometry). Column 0 under layout first is each
// row's own positive.
func refPadCol(st *candidates.Step, j int) bool {
	g := st.Geometry
	switch {
	case !(g.Padded && g.Layout == candidates.Diagonal || g.Unfilled):
		return false
	case g.Layout == candidates.Diagonal && j < len(st.RowItem):
		return st.Padding(j)
	case g.Layout == candidates.First && j == 0:
		return false
	}
	return j < g.Cols(len(st.RowItem), st.Items)-g.PerRow && st.ColItem[j] == candidates.NoItem
}

// refM is m, the number of a row's negatives by the convention of the losses (C − 1), less the
// columns masked from every row (refPadCol), at least 1.
func refM(st *candidates.Step, c int) float64 {
	pad := 0
	for j := range c {
		if refPadCol(st, j) {
			pad++
		}
	}
	return float64(max(c-pad-1, 1))
}

// The side inputs of the step: each column's (col) and each row's positive's (pos) log q, log
// p̂ and log π, and the rewards (1 where the step has none).
func colQ(st *candidates.Step, i, j, c int) float64 {
	return st.Col(candidates.LogQ)[refCol(st, i, j, c)]
}
func colP(st *candidates.Step, i, j, c int) float64 {
	return st.Col(candidates.LogP)[refCol(st, i, j, c)]
}
func colPrior(st *candidates.Step, i, j, c int) float64 {
	return st.Col(candidates.LogPrior)[refCol(st, i, j, c)]
}
func posQ(st *candidates.Step, i int) float64     { return st.Row(candidates.LogQ)[i] }
func posP(st *candidates.Step, i int) float64     { return st.Row(candidates.LogP)[i] }
func posPrior(st *candidates.Step, i int) float64 { return st.Row(candidates.LogPrior)[i] }
func reward(st *candidates.Step, i int) float64 {
	if r := st.Row(candidates.Rewards); r != nil {
		return r[i]
	}
	return 1
}

// refNegatives is the set N of negative columns of row i: every column but
// the positive, minus the accidental hits when they are removed and the padding rows' columns.
func refNegatives(s *Settings, st *candidates.Step, i, c int) []int {
	p := refPos(st, i)
	var n []int
	for j := 0; j < c; j++ {
		if j == p || refPadCol(st, j) {
			continue
		}
		if s.RemoveAccidentalHits && st.ColItem[refCol(st, i, j, c)] == st.RowItem[i] {
			continue
		}
		if s.LogQProbability == LogQProbabilityDedupe && refSeenBefore(s, st, i, j, c) {
			continue
		}
		n = append(n, j)
	}
	return n
}

// refSeenBefore reports whether the item of column j of row i already fills a
// column k < j of the row.
func refSeenBefore(s *Settings, st *candidates.Step, i, j, c int) bool {
	for k := 0; k < j; k++ {
		if st.ColItem[refCol(st, i, k, c)] == st.ColItem[refCol(st, i, j, c)] {
			return true
		}
	}
	return false
}

// refLogQ is log Q of column j (the positive's when pos) for logq, nce and
// sampled_logistic: log(m·q_j), m = refM, for expected_count; log p̂_j otherwise.
func refLogQ(s *Settings, st *candidates.Step, i, j, c int, pos bool) float64 {
	if s.LogQProbability == LogQProbabilityExpectedCount {
		m := refM(st, c)
		if pos {
			return math.Log(m * math.Exp(posQ(st, i)))
		}
		return math.Log(m * math.Exp(colQ(st, i, j, c)))
	}
	if pos {
		return posP(st, i)
	}
	return colP(st, i, j, c)
}

// refWeight is w_yy' of Rawat et al. Table 1 / eq. (14) in the linear domain:
// constant 1/m, importance 1/(m q_y'), relative q_y/q_y', tail π_y'/(m q_y' π_y).
func refWeight(s *Settings, st *candidates.Step, i, j, c int) float64 {
	fm := refM(st, c)
	if s.Variant == VariantConstant {
		return 1 / fm
	}
	qj := math.Exp(colQ(st, i, j, c))
	switch s.Variant {
	case VariantImportance:
		return 1 / (fm * qj)
	case VariantRelative:
		return math.Exp(posQ(st, i)) / qj
	case VariantTail:
		return math.Exp(colPrior(st, i, j, c)) / (fm * qj * math.Exp(posPrior(st, i)))
	}
	panic("refWeight: not a Rawat weighting")
}

// refLogSumExp is log Σ e^{x_k}, computed stably.
func refLogSumExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(v - mx)
	}
	return mx + math.Log(sum)
}

// refLogSigmoid is log σ(x) = −log(1+e^{−x}), computed stably.
func refLogSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

func refSigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// correct applies an additive logit correction c to raw score sc: s/τ + c
// (correct_at = logits) or (s + c)/τ (correct_at = scores).
func correct(s *Settings, sc, c float64) float64 {
	if s.CorrectAt == CorrectAtScores {
		return (sc + c) / s.Temperature
	}
	return sc/s.Temperature + c
}

// refLoss returns the loss of the R×C scores S (row-major) and ∂L/∂S.
func refLoss(s *Settings, st *candidates.Step, S []float64, b, c int) (float64, []float64) {
	grad := make([]float64, b*c)
	valid := b
	if st.Geometry.Padded {
		for i := range b {
			if st.Padding(i) {
				valid--
			}
		}
	}
	scale := 1.0
	if s.Reduction == ReductionMean {
		scale = 1 / float64(valid)
	}
	total := 0.0
	for i := 0; i < b; i++ {
		if st.Geometry.Padded && st.Padding(i) {
			continue
		}
		row := S[i*c : (i+1)*c]
		gr := grad[i*c : (i+1)*c]
		k := reward(st, i) * scale
		p := refPos(st, i)
		neg := refNegatives(s, st, i, c)
		var li float64
		switch s.Variant {
		case VariantPlain, VariantFull, VariantLogQ, VariantLogitAdjusted:
			// Yi et al. eq. (3)/(4), Menon et al.: −log P, P = e^{z_p}/Σ_{j∈{p}∪N} e^{z_j}.
			z := make([]float64, c)
			for j := 0; j < c; j++ {
				z[j] = correctedLogit(s, st, row, i, j, p, c)
			}
			cols := append([]int{p}, neg...)
			zs := make([]float64, len(cols))
			for t, j := range cols {
				zs[t] = z[j]
			}
			lse := refLogSumExp(zs)
			li = lse - z[p]
			for _, j := range cols {
				gr[j] += k / s.Temperature * math.Exp(z[j]-lse)
			}
			gr[p] -= k / s.Temperature
		case VariantConstant, VariantImportance, VariantRelative, VariantTail:
			f := func(j int) float64 { return row[j] / s.Temperature }
			if s.Form == FormDecoupled {
				// Rawat et al. eq. (6): φ(f_y) + Σ_{y'∈N} w φ(−f_y'), φ(z) = log(1+e^{−z}).
				li = -refLogSigmoid(f(p))
				gr[p] = -k / s.Temperature * refSigmoid(-f(p))
				for _, j := range neg {
					w := refWeight(s, st, i, j, c)
					li += w * -refLogSigmoid(-f(j))
					gr[j] = k / s.Temperature * w * refSigmoid(f(j))
				}
				break
			}
			// Rawat et al. eq. (5): log[1 + Σ_{y'∈N} w e^{f_y' − f_y}] with
			// w·e^{f_y'} = e^{f_y' + log w} (correct_at = scores: (s + log w)/τ).
			t := []float64{0}
			for _, j := range neg {
				t = append(t, correct(s, row[j], math.Log(refWeight(s, st, i, j, c)))-f(p))
			}
			li = refLogSumExp(t)
			for n, j := range neg {
				d := math.Exp(t[n+1] - li)
				gr[j] += k / s.Temperature * d
				gr[p] -= k / s.Temperature * d
			}
		case VariantNCE, VariantNegativeSampling, VariantSampledLogistic:
			// Candidate-sampling table: logistic loss on G, positive label 1, negatives 0.
			gp := correctedLogit(s, st, row, i, p, p, c)
			li = -refLogSigmoid(gp)
			gr[p] = -k / s.Temperature * (1 - refSigmoid(gp))
			for _, j := range neg {
				g := correctedLogit(s, st, row, i, j, p, c)
				li += -refLogSigmoid(-g)
				gr[j] = k / s.Temperature * refSigmoid(g)
			}
		case VariantLogQCorrected:
			r := refLogQCorrectedRow(s, st, row, i, c)
			li = r.w * r.loss
			for t, j := range r.neg {
				gr[j] += k * r.w / s.Temperature * r.softmax[t]
			}
			gr[p] -= k * r.w / s.Temperature
		case VariantGBCE, VariantPSL, VariantDebiasedContrastive:
			li = refOptionedRow(s, st, row, gr, i, c, k)
		case VariantLogIn, VariantLogOut:
			li = refMultiPositiveRow(s, st, row, gr, i, c, k)
		case VariantMSEGramian:
			// Krichene et al.: (s_ip − 1)² + λ/(B·C_g) Σ_{i,j∈gram} w_j s_ij² (times B for sum),
			// the Gramian columns G all columns (the drawn ones under layout first) but the
			// padding rows'.
			d := row[p] - 1
			li = d * d
			gr[p] = 2 * k * d
			from := 0
			if st.Geometry.Layout == candidates.First {
				from = 1
			}
			ncol := 0
			for j := from; j < c; j++ {
				if !refPadCol(st, j) {
					ncol++
				}
			}
			gc := scale * s.GramianWeight / float64(ncol)
			for j := from; j < c; j++ {
				if refPadCol(st, j) {
					continue
				}
				w := refGramWeight(st, i, j, c)
				total += gc * w * row[j] * row[j]
				gr[j] += 2 * gc * w * row[j]
			}
		}
		total += k * li
	}
	return total, grad
}

// correctedLogit is the logit of column j of row i (positive column p) for the
// softmax variants plain, full, logq, logit_adjusted and the logistic ones
// nce, negative_sampling, sampled_logistic.
func correctedLogit(s *Settings, st *candidates.Step, row []float64, i, j, p, c int) float64 {
	if s.Variant.SeveralPositives() && s.LogQProbability == "" {
		return row[j] / s.Temperature
	}
	switch s.Variant {
	case VariantLogQ, VariantNCE, VariantSampledLogistic, VariantLogIn, VariantLogOut:
		if j == p {
			if s.UncorrectedPositive {
				return row[j] / s.Temperature
			}
			return correct(s, row[j], -refLogQ(s, st, i, j, c, true))
		}
		return correct(s, row[j], -refLogQ(s, st, i, j, c, false))
	case VariantLogitAdjusted:
		if j == p {
			return correct(s, row[j], s.LATau*posPrior(st, i))
		}
		return correct(s, row[j], s.LATau*colPrior(st, i, j, c))
	}
	return row[j] / s.Temperature
}

// refGramWeight is mse_gramian's weight of column j of row i, drawn ∝ q_j:
// 1/(M·q_j), so that the weighted batch Gramian estimates the uniform one (1
// for a uniform sampler's columns, q = 1/M).
func refGramWeight(st *candidates.Step, i, j, c int) float64 {
	if st.Geometry.Layout == candidates.Corpus {
		return 1
	}
	return 1 / (float64(st.Items) * math.Exp(colQ(st, i, j, c)))
}

// logqCorrectedRow is one row of logq_corrected: its loss ℓ, weight w = 1 − P̂,
// negatives and the softmax of ŝ over them.
type logqCorrectedRow struct {
	loss, w float64
	neg     []int
	softmax []float64
}

// refLogQCorrectedRow is Khrylchenko et al.: Q'(j) = q_j/(1 − q_p),
// ŝ_j = f_j − log Q'(j) over the negatives S (copies of the positive removed),
// ℓ = −f_p + log Σ_{j∈S} e^{ŝ_j}, P̂ = e^{f_p}/(e^{f_p} + (1/k')Σ_{j∈S} e^{ŝ_j}),
// and w = 1 − P̂. A row without negatives has ℓ = 0, w = 0.
func refLogQCorrectedRow(s *Settings, st *candidates.Step, row []float64, i, c int) logqCorrectedRow {
	neg := refNegatives(s, st, i, c)
	if len(neg) == 0 {
		return logqCorrectedRow{}
	}
	qp := math.Exp(posQ(st, i))
	sh := make([]float64, len(neg))
	for t, j := range neg {
		qPrime := math.Exp(colQ(st, i, j, c)) / (1 - qp)
		sh[t] = correct(s, row[j], -math.Log(qPrime))
	}
	fp := row[refPos(st, i)] / s.Temperature
	lse := refLogSumExp(sh)
	sum := 0.0
	for _, v := range sh {
		sum += math.Exp(v)
	}
	pHat := math.Exp(fp) / (math.Exp(fp) + sum/float64(len(neg)))
	soft := make([]float64, len(sh))
	for t, v := range sh {
		soft[t] = math.Exp(v - lse)
	}
	return logqCorrectedRow{loss: lse - fp, w: 1 - pHat, neg: neg, softmax: soft}
}

// refMultiPositiveRow is one row of login or logout, adding k·∂ℓ/∂s to gr: with the logits z
// (corrected as logq corrects them when logq_probability is set), the positives P = {p} and the
// negatives marked as known positives (side input positives), and the other negatives R,
//
//	login:  ℓ = log Σ_{j∈P∪R} e^{z_j} − log Σ_{j∈P} e^{z_j},
//	logout: ℓ = (1/|P|)·Σ_{j∈P} log(1 + Σ_{n∈R} e^{z_n − z_j}),
//
// and ∂z/∂s = 1/τ. A logout row with R empty has ℓ = 0.
func refMultiPositiveRow(s *Settings, st *candidates.Step, row, gr []float64, i, c int, k float64) float64 {
	idx, _ := st.Entries(candidates.Positives)
	known := map[int]bool{}
	for _, e := range idx {
		known[e] = true
	}
	p := refPos(st, i)
	pos, rest := []int{p}, []int(nil)
	for _, j := range refNegatives(s, st, i, c) {
		if known[i*c+j] {
			pos = append(pos, j)
		} else {
			rest = append(rest, j)
		}
	}
	z := make([]float64, c)
	for j := range c {
		z[j] = correctedLogit(s, st, row, i, j, p, c)
	}
	at := func(cols []int) []float64 {
		out := make([]float64, len(cols))
		for t, j := range cols {
			out[t] = z[j]
		}
		return out
	}
	g := k / s.Temperature
	if s.Variant == VariantLogIn {
		// ℓ = log(1 + Σ_{n∈R} e^{z_n − lsePos}) = softplus(x), not lseAll − lsePos, whose
		// difference of two large logs loses the digits of a small loss; for the same reason
		// ∂ℓ/∂z_j = e^{z_j − lseAll} − e^{z_j − lsePos} = e^{z_j − lsePos}·expm1(−ℓ) on P.
		lsePos := refLogSumExp(at(pos))
		x := math.Inf(-1)
		if len(rest) > 0 {
			x = refLogSumExp(at(rest)) - lsePos
		}
		loss := refSoftplus(x)
		for _, j := range pos {
			gr[j] += g * math.Exp(z[j]-lsePos) * math.Expm1(-loss)
		}
		for _, j := range rest {
			gr[j] += g * math.Exp(z[j]-lsePos-loss)
		}
		return loss
	}
	if len(rest) == 0 {
		return 0
	}
	a := refLogSumExp(at(rest))
	n := float64(len(pos))
	loss, share := 0.0, 0.0
	for _, j := range pos {
		loss += refSoftplus(a-z[j]) / n // log(1 + e^{a − z_j})
		sg := refSigmoid(a - z[j])
		gr[j] -= g * sg / n
		share += sg / n
	}
	for _, j := range rest {
		gr[j] += g * share * math.Exp(z[j]-a)
	}
	return loss
}

// refSoftplus is log(1 + e^x) = max(x, 0) + log1p(e^{−|x|}), exact however small.
func refSoftplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }
