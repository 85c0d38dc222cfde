//go:build linux

package store

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page (x86-64, and arm64 with 4
// KiB pages).
const hugePage = 2 << 20

// madvCollapse is MADV_COLLAPSE (Linux 6.1), which package syscall lacks.
const madvCollapse = 25

// adviseHuge asks the kernel to back the 2 MiB-aligned part of a large table's
// slots with transparent huge pages: a claim's probe lands on a random line of
// the table, and with 4 KiB pages it missed the TLB as well (a page walk, the
// dearer in a virtual machine). The slots stay on the Go heap (counted by the
// collector and GOMEMLIMIT; no pointers to scan). MADV_HUGEPAGE makes the range
// eligible (THP is often "madvise" only, and the Go runtime advises none of its
// heap): its pages not yet touched fault in as huge pages; MADV_COLLAPSE turns
// those make already zeroed (memory the heap reused) into huge pages now rather
// than whenever khugepaged gets there. Both are advice: an error (an older
// kernel, THP off, no huge page free) leaves small pages.
func adviseHuge(slots []slot) {
	size := len(slots) * int(unsafe.Sizeof(slot{}))
	if size < 2*hugePage {
		return
	}
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&slots[0])), size)
	start := uintptr(unsafe.Pointer(&mem[0]))
	lo := int(-start & (hugePage - 1))
	hi := size - int((start+uintptr(size))&(hugePage-1))
	if hi-lo < hugePage {
		return
	}
	_ = syscall.Madvise(mem[lo:hi], syscall.MADV_HUGEPAGE)
	_ = syscall.Madvise(mem[lo:hi], madvCollapse)
}
