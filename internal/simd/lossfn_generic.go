//go:build !amd64 || noasm

package simd

// Without vector code the loss functions take no head: plain Go computes every entry.

func surrogatesHead(Surrogate, []float32, []float32, []float32, float32) int { return 0 }
func softplusHead([]float32, []float32, []float32, *[16]float64, *bool) int  { return 0 }
func powHead[T Floats]([]T, []T, []T, float64, int, *[4]float64) int         { return 0 }
func maskedMaxHead[T Floats]([]T, []T, *T) (int, bool)                       { return 0, true }
func sumHead[T Floats]([]T, *[8]float64) int                                 { return 0 }

func affineMaxHead[T Floats](_ []float64, _ []T, _ float64, _ []float64, _, m float64) (int, float64) {
	return 0, m
}

func scaleAddHead[T Floats](_ []float64, _ []T, _ T, _ []T, mx float64) (int, float64) {
	return 0, mx
}
