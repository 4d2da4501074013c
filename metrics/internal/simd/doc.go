// Package simd holds the vector routines of package metrics: a 6×16 float32 matrix-product
// micro-kernel and the threshold counts of its ranking. On amd64 with AVX2 and FMA they are Go
// assembly (which cannot live in package metrics itself, a cgo package under the openblas build
// tag); elsewhere, and with the noasm build tag, the counts are plain Go and the kernel is
// unavailable (Kernel reports false).
package simd
