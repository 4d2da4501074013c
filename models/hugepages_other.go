//go:build !linux

package models

// adviseHugePages is a no-op outside Linux (see hugepages_linux.go).
func adviseHugePages[T float](a []T) {}
