package models

import "math"

// The plain-Go float64 reference of the SASRec encoder, written from Kang & McAuley (ICDM 2018)
// section III in the form of the authors' code (kang205/SASRec model.py, modules.py), one
// window row and one position at a time, independently of the graph code: no GEMM, no tiles, no
// op of this package.

// refMasks are the dropout masks of one training step in the graph's layout (sasrecNodes.drop):
// embedding (positions × d), then per block the attention weights ((rows·heads·L) × L), the
// first and the second feed-forward layer (positions × d). nil: no dropout (inference).
type refMasks [][]float64

// refVec is a d-vector.
type refVec = []float64

// refLayerNorm is γ ⊙ (x − μ)/sqrt(σ² + ε) + β, σ² the population variance.
func refLayerNorm(x refVec, gamma, beta []float64, eps float64) refVec {
	d := float64(len(x))
	var mu float64
	for _, v := range x {
		mu += v
	}
	mu /= d
	var v2 float64
	for _, v := range x {
		v2 += (v - mu) * (v - mu)
	}
	sd := math.Sqrt(v2/d + eps)
	y := make(refVec, len(x))
	for j, v := range x {
		y[j] = gamma[j]*(v-mu)/sd + beta[j]
	}
	return y
}

// refDense is x·W + b (W in × out, row-major), then ReLU when relu.
func refDense(x refVec, w, b []float64, relu bool) refVec {
	out := len(b)
	y := make(refVec, out)
	for o := range out {
		s := b[o]
		for i, v := range x {
			s += v * w[i*out+o]
		}
		if relu && s < 0 {
			s = 0
		}
		y[o] = s
	}
	return y
}

// refForm is the input scale c and the layer normalisations' ε of the reference.
type refForm struct{ scale, eps float64 }

// refSASRec returns the encoder's output for the window w (rows·Len × d) and the loss
// Σ out ⊙ coef (coef nil: 0), with the dropout masks m (nil: none), the item embedding scaled by
// f.scale and every layer normalisation of ε f.eps.
func refSASRec(e *sasrec, w *Window, m refMasks, coef []float64, f refForm) ([]float64, float64) {
	d, L, h := e.d, w.Len, e.s.Heads
	dh := d / h
	vals := func(p *param) []float64 { return values[float64](p) }
	items, pos := vals(e.items), vals(e.pos)
	drop := func(k, i, j int) float64 { // mask k at row i (of its matrix), column j
		if m == nil {
			return 1
		}
		cols := d
		if k%3 == 1 { // the attention masks
			cols = L
		}
		return m[k][i*cols+j]
	}
	out := make([]float64, w.Rows*L*d)
	for r := range w.Rows {
		s := w.start(r)
		H := make([]refVec, L)
		for t := range L {
			H[t] = make(refVec, d)
			if t < s {
				continue
			}
			it := int(w.Items[r*L+t])
			for j := range d {
				x := f.scale*items[it*d+j] + pos[(e.s.MaxLength-L+t)*d+j]
				H[t][j] = x * drop(0, r*L+t, j)
			}
		}
		for bi, blk := range e.blocks {
			mk := 1 + 3*bi // the block's attention mask; +1, +2: the feed-forward masks
			Qn := make([]refVec, L)
			Q, K, V := make([]refVec, L), make([]refVec, L), make([]refVec, L)
			for t := range L {
				Qn[t] = refLayerNorm(H[t], vals(blk.ln1.gamma), vals(blk.ln1.beta), f.eps)
				Q[t] = refDense(Qn[t], vals(blk.query.w), vals(blk.query.b), false)
				K[t] = refDense(H[t], vals(blk.key.w), vals(blk.key.b), false)
				V[t] = refDense(H[t], vals(blk.val.w), vals(blk.val.b), false)
			}
			next := make([]refVec, L)
			for t := range L {
				A := make(refVec, d)
				if t >= s {
					for k := range h {
						cols := func(x refVec) refVec { return x[k*dh : (k+1)*dh] }
						// softmax over the keys s ≤ j ≤ t of ⟨q_t, k_j⟩/√d_h
						sc := make([]float64, t-s+1)
						mx := math.Inf(-1)
						for j := s; j <= t; j++ {
							var dot float64
							for c, q := range cols(Q[t]) {
								dot += q * cols(K[j])[c]
							}
							sc[j-s] = dot / math.Sqrt(float64(dh))
							mx = math.Max(mx, sc[j-s])
						}
						var z float64
						for i := range sc {
							sc[i] = math.Exp(sc[i] - mx)
							z += sc[i]
						}
						row := (r*h+k)*L + t
						for j := s; j <= t; j++ {
							wt := sc[j-s] / z * drop(mk, row, j)
							for c, v := range cols(V[j]) {
								A[k*dh+c] += wt * v
							}
						}
					}
				}
				S := make(refVec, d)
				for j := range d {
					S[j] = A[j] + Qn[t][j]
				}
				Fn := refLayerNorm(S, vals(blk.ln2.gamma), vals(blk.ln2.beta), f.eps)
				F := refDense(Fn, vals(blk.ffn1.w), vals(blk.ffn1.b), true)
				for j := range F {
					F[j] *= drop(mk+1, r*L+t, j)
				}
				F = refDense(F, vals(blk.ffn2.w), vals(blk.ffn2.b), false)
				next[t] = make(refVec, d)
				if t < s {
					continue
				}
				for j := range d {
					next[t][j] = F[j]*drop(mk+2, r*L+t, j) + Fn[j]
				}
			}
			H = next
		}
		for t := s; t < L; t++ {
			copy(out[(r*L+t)*d:], refLayerNorm(H[t], vals(e.norm.gamma), vals(e.norm.beta), f.eps))
		}
	}
	var loss float64
	for i, c := range coef {
		loss += c * out[i]
	}
	return out, loss
}
