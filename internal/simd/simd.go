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
