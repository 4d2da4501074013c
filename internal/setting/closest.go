package setting

import (
	"slices"
	"strings"
)

// Distance is the edit distance between a and b (optimal string alignment): the fewest
// insertions, deletions and substitutions of a character, and transpositions of two adjacent
// ones, that turn one into the other.
func Distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			sub := d[i-1][j-1]
			if x[i-1] != y[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// Closest returns up to n of candidates nearest to s (see Nearest) among those within
// max(1, len(s)/3) edits: the names a misspelling of s was probably meant to be. It returns none
// when nothing is that close.
func Closest(s string, candidates []string, n int) []string {
	limit := max(1, len([]rune(s))/3)
	near := Nearest(s, candidates, n)
	return slices.DeleteFunc(near, func(c string) bool { return Distance(s, c) > limit })
}

// Nearest returns up to n distinct candidates nearest to s by Distance, nearest first (ties in
// the candidates' order), however far.
func Nearest(s string, candidates []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var all []scored
	for _, c := range candidates {
		if !slices.ContainsFunc(all, func(x scored) bool { return x.name == c }) {
			all = append(all, scored{c, Distance(s, c)})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, min(n, len(all)))
	for _, x := range all[:min(n, len(all))] {
		out = append(out, x.name)
	}
	return out
}

// DidYouMean is " (did you mean a?)" or " (did you mean a or b?)" for the candidates closest
// to s (see Closest), or "" when none is close.
func DidYouMean(s string, candidates []string) string {
	if m := meant(s, candidates); m != "" {
		return " (" + m + ")"
	}
	return ""
}

// meant is "did you mean a?" or "did you mean a or b?" for the candidates closest to s, or "".
func meant(s string, candidates []string) string {
	near := Closest(s, candidates, 2)
	if len(near) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(near, " or ") + "?"
}
