//go:build race

package older

const raceEnabled = true
