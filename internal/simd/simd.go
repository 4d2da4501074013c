package simd

import "math"

// countGEGo is CountGE in plain Go.
func countGEGo(x []float32, lo, hi float32) (nlo, nhi int) {
	for _, v := range x {
		if v >= lo {
			nlo++
		}
		if v >= hi {
			nhi++
		}
	}
	return nlo, nhi
}

// indexInGo is IndexIn in plain Go.
func indexInGo(x []float32, lo, hi float32) int {
	for i, v := range x {
		if v >= lo && v < hi {
			return i
		}
	}
	return -1
}

// addGo is Add in plain Go.
func addGo(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// checkRows panics unless every row i of idx, rows[i*stride : i*stride+16], lies within n values.
func checkRows(n, stride int, idx []int32) {
	if stride < 16 {
		panic("simd: AddRows16: stride below 16")
	}
	for _, i := range idx {
		if i < 0 || int(i)*stride+16 > n {
			panic("simd: AddRows16: row out of range")
		}
	}
}

// addRows16Go is AddRows16 in plain Go.
func addRows16Go(acc *[16]float64, rows []float64, stride int, idx []int32) {
	for _, i := range idx {
		for j, v := range rows[int(i)*stride:][:16] {
			acc[j] += v
		}
	}
}

// AdamStep holds the scalars of one Adam step: the gradients' scale (clipping), the moments'
// decay rates b1 and b2, eps, the step size lr/(1−b1^t) and 1/√(1−b2^t).
type AdamStep struct {
	Scale, B1, B2, Eps, StepSize, InvSqrtBC2 float32
}

// adamGo is Adam in plain Go. The conversions to float32 round every product before it is added,
// as the vector code does (without them the compiler may fuse a product and a sum).
func adamGo(w, g, st []float32, p AdamStep) {
	g, st = g[:len(w)], st[:2*len(w)]
	c1, c2 := 1-p.B1, 1-p.B2
	for i, gi := range g {
		gi *= p.Scale
		m := float32(p.B1*st[2*i]) + float32(c1*gi)
		v := float32(p.B2*st[2*i+1]) + float32(float32(c2*gi)*gi)
		st[2*i], st[2*i+1] = m, v
		w[i] -= float32(p.StepSize*m) / (float32(float32(math.Sqrt(float64(v)))*p.InvSqrtBC2) + p.Eps)
	}
}

// addReLUGo is AddReLU in plain Go.
func addReLUGo(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = max(a[i]+b[i], 0)
	}
}

// reluGradGo is ReLUGrad in plain Go, without branches (a ReLU's sign pattern is unpredictable).
func reluGradGo(dst, y, g []float32) {
	y, g = y[:len(dst)], g[:len(dst)]
	for i, v := range y {
		// all ones iff v > 0: the int32 view of a float is positive iff the float is
		mask := uint32(-int64(int32(math.Float32bits(v))) >> 63)
		dst[i] = math.Float32frombits(math.Float32bits(g[i]) & mask)
	}
}

// addScaledGo is AddScaled in plain Go.
func addScaledGo(dst []float32, c float32, x []float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] += float32(c * v)
	}
}
