package store

import (
	"bufio"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mapping returns, from /proc/self/smaps, the VmFlags and AnonHugePages (kB)
// of the mapping of this process that holds addr; ok false when none does.
func mapping(t *testing.T, addr uintptr) (flags string, hugeKB int, ok bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		l := sc.Text()
		if lo, hi, found := strings.Cut(strings.Fields(l + " x")[0], "-"); found {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil { // a mapping's first line
				if in {
					return flags, hugeKB, true
				}
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		switch {
		case in && strings.HasPrefix(l, "AnonHugePages:"):
			hugeKB, _ = strconv.Atoi(strings.Fields(l)[1])
		case in && strings.HasPrefix(l, "VmFlags:"):
			flags = strings.TrimPrefix(l, "VmFlags:")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return flags, hugeKB, in
}

// thpGranted reports whether the kernel backs a region advised MADV_HUGEPAGE
// with huge pages: THP enabled "always" or "madvise".
func thpGranted(t *testing.T) bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	en := string(b)
	ok := err == nil && (strings.Contains(en, "[always]") || strings.Contains(en, "[madvise]"))
	t.Logf("THP enabled %q: huge pages granted to an advised region: %v", strings.TrimSpace(en), ok)
	return ok
}

// TestLargeTableOnHugePages: a table of 4 MiB or more has its 2 MiB-aligned
// part advised MADV_HUGEPAGE (a mapping of its own with the "hg" flag); the
// huge pages the kernel then grants it are logged.
func TestLargeTableOnHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	var dt digestTable
	dt.resize(1 << 17)        // 4 MiB
	for i := range dt.slots { // fault the pages in, as a table in use does
		dt.slots[i].n = uint32(i)
	}
	p := uintptr(unsafe.Pointer(&dt.slots[0]))
	inner := (p + hugePage) &^ (hugePage - 1) // inside the aligned part
	flags, huge, ok := mapping(t, inner)
	if !ok {
		t.Fatalf("no mapping holds the table at %#x", inner)
	}
	t.Logf("the table's aligned part: VmFlags%s, AnonHugePages %d kB", flags, huge)
	if !strings.Contains(flags+" ", " hg ") {
		t.Fatalf("the table's aligned part is not advised MADV_HUGEPAGE (VmFlags%s)", flags)
	}
	// Whether the kernel found a free huge page is its own affair (memory
	// may be fragmented): reported, not required.
	if thpGranted(t) && huge < 2048 {
		t.Logf("the kernel granted the advised table no huge page (%d kB)", huge)
	}
	goruntime.KeepAlive(dt.slots)
}
