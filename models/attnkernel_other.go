//go:build !amd64 || noasm

package models

// kernelBlock reports that no micro-kernel computes the attention's products in this build: they
// go to gemm tile by tile (lowerBlock, rowBlock, colBlock).
func kernelBlock[T float](productMode, []T, []T, []T, []T, int, int, int, int, T, *kernelScratch) bool {
	return false
}
