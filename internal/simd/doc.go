// Package simd holds the vector routines of package metrics: a 6×16 float32 matrix-product
// micro-kernel and the threshold counts of its ranking. On amd64 they are Go assembly using AVX2
// and FMA (Go assembly cannot live in package metrics itself, a cgo package under the openblas
// build tag), with plain-Go counts on processors without them (Kernel then reports false). On
// other architectures, and with the noasm build tag, the counts are plain Go and the kernel does
// not exist.
package simd
