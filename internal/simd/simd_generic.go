//go:build !amd64 || noasm

package simd

// CountGE returns how many x[i] satisfy x[i] ≥ lo and how many satisfy x[i] ≥ hi (NaN satisfies
// neither).
func CountGE(x []float32, lo, hi float32) (nlo, nhi int) { return countGEGo(x, lo, hi) }

// IndexIn returns the least i with lo ≤ x[i] < hi, or -1 if there is none.
func IndexIn(x []float32, lo, hi float32) int { return indexInGo(x, lo, hi) }

// Add sets dst[i] = a[i] + b[i] for i < len(dst); a and b must be at least as long as dst.
func Add(dst, a, b []float32) { addGo(dst, a, b) }

// AddRows16 adds the 16 values rows[i*stride : i*stride+16] of every i of idx to acc, in the order
// of idx: each acc[j] is the sum acc[j] + rows[idx[0]*stride+j] + rows[idx[1]*stride+j] + …
// formed one term at a time, as a loop over idx would. It panics if a row is out of range.
func AddRows16(acc *[16]float64, rows []float64, stride int, idx []int32) {
	checkRows(len(rows), stride, idx)
	addRows16Go(acc, rows, stride, idx)
}
