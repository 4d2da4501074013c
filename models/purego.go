//go:build !openblas

package models

// splitGemm: gonum's pure-Go Gemm already computes large products on every core.
const splitGemm = false
