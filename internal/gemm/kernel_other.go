//go:build !amd64 || noasm

package gemm

// run reports that there is no micro-kernel here: Sgemm is gonum's.
func (p *product) run() bool { return false }
