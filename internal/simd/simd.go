package simd

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
