package measure

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// ErrorCount is one kind of failure of an op type: how many attempts failed so, and the first
// one's message. A count alone ("errors 3") says nothing about what went wrong; the first
// message of each kind says it without keeping every message.
type ErrorCount struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
	First string `json:"first"`
}

// MaxErrorMessage is the most of a message kept, in bytes: a driver's message can carry a
// whole statement.
const MaxErrorMessage = 300

// KindOther is the kind of an error no classifier named.
const KindOther = "other"

// shorten cuts s to at most n bytes on a rune boundary, marking the cut with "...".
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := max(n-3, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// addError counts n failures of a kind into kinds, keeping the first message seen of it.
func addError(kinds []ErrorCount, kind string, n int64, first string) []ErrorCount {
	if kind == "" {
		kind = KindOther
	}
	for i := range kinds {
		if kinds[i].Kind == kind {
			kinds[i].Count += n
			if kinds[i].First == "" {
				kinds[i].First = first
			}
			return kinds
		}
	}
	return append(kinds, ErrorCount{Kind: kind, Count: n, First: first})
}

// sortErrors orders kinds by count, most first, then by name: the order summaries print.
func sortErrors(kinds []ErrorCount) []ErrorCount {
	out := append([]ErrorCount(nil), kinds...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}
