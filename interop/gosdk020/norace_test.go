//go:build !race

package gosdk020

const raceEnabled = false
