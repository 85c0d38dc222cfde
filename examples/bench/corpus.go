package bench

import (
	"strconv"
	"strings"
	"sync"
)

// The corpus is the benchmark's fixed set of note lines: 10 files
// (notes/2025-01.md to notes/2025-10.md) of 20 lines each. Line i (0-based over
// the whole corpus) reads "<topic>: <thing> <relation> <person> (#<100+i>)",
// each part picked from its list by a fixed multiple of i, so every server in
// the benchmark searches exactly the same text.
const (
	corpusFiles = 10
	fileLines   = 20
)

var (
	topics    = [...]string{"Deploy", "Review", "Meeting", "Bug", "Release", "Design", "Budget", "Hiring", "Incident", "Roadmap"}
	things    = [...]string{"API gateway", "billing service", "search index", "mobile app", "auth flow", "data pipeline", "dashboard", "CI runner"}
	relations = [...]string{"blocked by", "moved after", "approved for", "needs input from", "owned by", "discussed with"}
	people    = [...]string{"Alice", "Bob", "Chen", "Dara", "Emeka", "Farah", "Goran"}
)

// corpusData holds the lines and their lower-case text, built on first use so
// that start-up does no work for it.
type corpusData struct {
	lines []Hit
	lower []string
}

var corpus = sync.OnceValue(func() *corpusData {
	n := corpusFiles * fileLines
	c := &corpusData{lines: make([]Hit, n), lower: make([]string, n)}
	for i := range n {
		c.lines[i] = Hit{File: noteFile(i/fileLines + 1), Line: i%fileLines + 1, Text: noteText(i)}
		c.lower[i] = strings.ToLower(c.lines[i].Text)
	}
	return c
})

// noteFile names the month-th note file, e.g. notes/2025-03.md.
func noteFile(month int) string {
	mm := strconv.Itoa(month)
	if month < 10 {
		mm = "0" + mm
	}
	return "notes/2025-" + mm + ".md"
}

// noteText is the text of corpus line i.
func noteText(i int) string {
	return topics[i%len(topics)] + ": " + things[i*7%len(things)] + " " + relations[i*3%len(relations)] +
		" " + people[i*5%len(people)] + " (#" + strconv.Itoa(100+i) + ")"
}
