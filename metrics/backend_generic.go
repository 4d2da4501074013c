//go:build !amd64 || noasm

package metrics

// newBackend returns the blas32 backend: the assembly kernel exists only on amd64.
func newBackend(u, v []float32, d int) backend {
	return newBLASBackend(u, v, d)
}
