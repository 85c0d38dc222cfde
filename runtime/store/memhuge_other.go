//go:build !linux

package store

// adviseHuge does nothing off Linux (memhuge_linux.go).
func adviseHuge([]slot) {}
