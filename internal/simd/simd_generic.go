//go:build !amd64 || noasm

package simd

// CountGE returns how many x[i] satisfy x[i] ≥ lo and how many satisfy x[i] ≥ hi (NaN satisfies
// neither).
func CountGE(x []float32, lo, hi float32) (nlo, nhi int) { return countGEGo(x, lo, hi) }

// IndexIn returns the least i with lo ≤ x[i] < hi, or -1 if there is none.
func IndexIn(x []float32, lo, hi float32) int { return indexInGo(x, lo, hi) }

// Add sets dst[i] = a[i] + b[i] for i < len(dst); a and b must be at least as long as dst.
func Add(dst, a, b []float32) { addGo(dst, a, b) }
