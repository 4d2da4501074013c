package models

import (
	"syscall"
	"unsafe"
)

// hugePageBytes is the size from which an array is backed by transparent huge pages.
const hugePageBytes = 8 << 20

// adviseHugePages asks Linux to back a large, not yet touched array with transparent huge pages
// (madvise MADV_HUGEPAGE; effective when THP is enabled, "always" or "madvise"). The rows of a
// large embedding table and of its optimiser state are read at random; with 4 KiB pages nearly
// every row costs a TLB miss, with 2 MiB pages almost none do. The advice is a hint: an error
// only means it was not taken.
func adviseHugePages[T float](a []T) {
	n := len(a) * int(unsafe.Sizeof(a[0]))
	if n < hugePageBytes {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), n), syscall.MADV_HUGEPAGE)
}
