// Package simd holds the shared low-level vector routines: a 6×16 float32 matrix-product
// micro-kernel (used by package metrics for its score tiles and, with alpha and beta, by
// internal/gemm for general matrix products) and the threshold counts of metrics' ranking. On
// amd64 they are Go assembly using AVX2 and FMA (Go assembly cannot live in a package that uses
// cgo, as metrics and models do under the openblas build tag), with plain-Go counts on processors
// without them (Kernel then reports false). On other architectures, and with the noasm build tag,
// the counts are plain Go and the kernels do not exist.
package simd
