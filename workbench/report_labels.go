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
		case k == "temperature":
			parts = append(parts, "τ="+v)
		default:
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return g
	}
	return strings.Join(parts, ", ")
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
