//go:build !openblas

package metrics

// preferBLAS is false without the openblas tag: the assembly kernel, where available, is much
// faster than gonum's pure-Go Sgemm.
const preferBLAS = false
