//go:build !openblas

package metrics

// blasCandidate is false without the openblas tag: blas32 is then gonum's pure-Go Sgemm, several
// times slower than the assembly kernel, which is used wherever the processor has it.
const blasCandidate = false
