package gen

// suggest.go: "did you mean" for misspelled directive words, and hints that
// point a diagnostic at the feature the user is after.

import (
	"go/types"
	"strings"
)

// directiveWords are every //mcp: directive, in the order messages list them.
var directiveWords = []string{"tool", "resource", "prompt", "complete", "constructor", "schema"}

// unknownDirective is the message for //mcp:word, which is no directive: the
// closest directive when one is near (a typo, a plural, another case), and
// every directive.
func unknownDirective(word string) string {
	msg := "unknown directive //mcp:" + word
	if best := closestWord(word, directiveWords); best != "" {
		msg += " (did you mean //mcp:" + best + "?)"
	}
	return msg + "; the directives are //mcp:" + strings.Join(directiveWords, ", //mcp:")
}

// closestWord returns the word of words nearest to w when it is near enough
// to be a slip: at most a third of its letters edited, or w with a prefix
// of a word (toolz, tools, resources).
func closestWord(w string, words []string) string {
	lw := strings.ToLower(w)
	best, bestD := "", len(lw)/3+1
	for _, c := range words {
		d := editDistance(lw, c)
		if strings.HasPrefix(lw, c) || strings.HasPrefix(c, lw) && len(lw) >= 3 {
			d = min(d, 1)
		}
		if d < bestD || d == bestD && best == "" {
			best, bestD = c, d
		}
	}
	if bestD > len(lw)/3+1 || best == "" {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// dynamicInputHint points a handler taking map[string]any or json.RawMessage
// (without input=FILE.json) at input=FILE.json, which gives it a hand-written
// input schema; "" for other types.
func dynamicInputHint(t types.Type) string {
	u := types.Unalias(t)
	m, isMap := u.Underlying().(*types.Map)
	anyMap := isMap && types.Identical(m.Key().Underlying(), types.Typ[types.String])
	if anyMap {
		iface, ok := m.Elem().Underlying().(*types.Interface)
		anyMap = ok && iface.Empty()
	}
	if isNamed(u, "encoding/json", "RawMessage") || anyMap {
		return "; to keep this type (arguments without a Go struct), write the input schema in a JSON file and name it with //mcp:tool input=FILE.json"
	}
	return ""
}
