// Package openblas binds OpenBLAS (Debian's libopenblas-dev) through cgo for the optional
// openblas build tag; without the tag it is empty. Importing it sets OpenBLAS to one thread: the
// workbench parallelises in Go, and OpenBLAS's own threads busy-wait and fight Go's scheduler.
package openblas
