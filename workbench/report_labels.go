package workbench

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// labeler names groups ("variant=plain,temperature=0.05") in tables and legends.
type labeler struct {
	labels    map[string]string // plots.labels: "axis=value" or "value" -> name ("" hides it)
	dropZeros bool              // leave out numeric values 0
}

// newLabeler returns the labeler of the groups gs with the names of plots.labels. A numeric axis
// value 0 (in the configs the zero value of a setting: unset, or not used by the cell, like
// negatives = 0 on an in-batch cell) is left out of every label when the labels still tell
// every group apart.
func newLabeler(labels map[string]string, gs []string) labeler {
	lb := labeler{labels: labels, dropZeros: true}
	seen := map[string]bool{}
	for _, g := range gs {
		l := lb.label(g)
		if seen[l] {
			lb.dropZeros = false
			break
		}
		seen[l] = true
	}
	return lb
}

// label is the name of a group: "all runs" for a grid without axes, otherwise its values joined
// by ", ": each one's name from plots.labels if it has one, else text values alone and numbers
// as key=value ("plain, τ=0.05" for "variant=plain,temperature=0.05"), leaving out the keys
// left empty in this cell, the values named "", and zeros as newLabeler says.
func (lb labeler) label(g string) string {
	if g == "" {
		return "all runs"
	}
	var parts []string
	for _, p := range strings.Split(g, ",") {
		k, v, _ := strings.Cut(p, "=")
		if name, ok := lb.named(k, v); ok {
			if name != "" {
				parts = append(parts, name)
			}
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		switch {
		case v == "":
		case err != nil:
			parts = append(parts, v)
		case x == 0 && lb.dropZeros:
		default:
			parts = append(parts, axisSymbol(k)+"="+v)
		}
	}
	if len(parts) == 0 {
		return g
	}
	return strings.Join(parts, ", ")
}

// axisSymbols are the papers' symbols of the numeric settings that have one, by the last
// component of the setting's key: the temperature τ of Yi et al. 2019 (s(x, y) = ⟨u, v⟩/τ).
var axisSymbols = map[string]string{"temperature": "τ"}

// axisSymbol is how a legend names numeric axis k: its symbol if it has one, else k
// ("τ=0.05", "negatives=64").
func axisSymbol(k string) string {
	if sym, ok := axisSymbols[k]; ok {
		return sym
	}
	return k
}

// axisLabel names the numeric axis key on a figure: its last component in words, capitalised,
// followed by its symbol if it has one ("Temperature τ", "Negatives", "Embedding dim").
func axisLabel(key string) string {
	k := last(key)
	words := strings.ReplaceAll(k, "_", " ")
	if words != "" {
		words = strings.ToUpper(words[:1]) + words[1:]
	}
	if sym, ok := axisSymbols[k]; ok {
		return words + " " + sym
	}
	return words
}

// named returns the plots.labels name of value v of axis k, if it has one.
func (lb labeler) named(k, v string) (string, bool) {
	if name, ok := lb.labels[k+"="+v]; ok {
		return name, true
	}
	name, ok := lb.labels[v]
	return name, ok
}

// checkLabels rejects a plots.labels key that names no value of the groups gs, which would
// otherwise be silently ignored, and names that make two groups look the same.
func checkLabels(labels map[string]string, gs []string) error {
	known := map[string]bool{}
	for _, g := range gs {
		for k, v := range groupSettings(g) {
			known[k+"="+v], known[v] = true, true
		}
	}
	for _, key := range slices.Sorted(maps.Keys(labels)) {
		if !known[key] {
			return fmt.Errorf("plots.labels: %q is no axis value of the grid (write a value or axis=value as in the run ids, e.g. %q)",
				key, firstPart(gs))
		}
	}
	lb := newLabeler(labels, gs)
	named := map[string]string{}
	for _, g := range gs {
		l := lb.label(g)
		if other, ok := named[l]; ok {
			return fmt.Errorf("plots.labels: cells %s and %s would both be named %q", other, g, l)
		}
		named[l] = g
	}
	return nil
}

// firstPart returns the first axis=value of the first group, an example for error messages.
func firstPart(gs []string) string {
	if len(gs) == 0 {
		return ""
	}
	p, _, _ := strings.Cut(gs[0], ",")
	return p
}
