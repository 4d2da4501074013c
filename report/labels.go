package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/plots"
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
	if parts := lb.parts(g); len(parts) > 0 {
		return strings.Join(parts, ", ")
	}
	return g
}

// parts are the names of group g's values that its label joins (none when every value is
// hidden, empty or a dropped zero).
func (lb labeler) parts(g string) []string {
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
	return parts
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
	k := isetting.Leaf(key)
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

// figureEncoding is how the figures draw the cells: the style of each group and the legend by factor;
// both nil when every cell gets its own style and legend entry.
type figureEncoding struct {
	styles map[string]*plots.Style
	key    *plots.Key
}

// style returns group g's style, nil for its position.
func (e figureEncoding) style(g string) *plots.Style { return e.styles[g] }

// newEncoding chooses the figures' encoding of the groups gs (in grid order), named by label:
// colour by the axis ps.ColorBy, marker by the axes ps.MarkerBy (see plots.Settings for the
// defaults). It is an error if a written axis is not one of the grid's, or if the written
// axes leave two cells with the same colour and marker.
func newEncoding(gs []string, lb labeler, ps plots.Settings) (figureEncoding, error) {
	keys, values := gridAxes(gs)
	written := ps.ColorBy != "" || len(ps.MarkerBy) > 0
	for _, k := range append([]string{ps.ColorBy}, ps.MarkerBy...) {
		if k != "" && !slices.Contains(keys, k) {
			key := "plots.color_by"
			if k != ps.ColorBy {
				key = "plots.marker_by"
			}
			return figureEncoding{}, fmt.Errorf("%s: %q is not an axis of the grid (its axes, as in run ids: %s)", key, k, strings.Join(keys, ", "))
		}
	}
	if !written && len(keys) < 2 {
		return figureEncoding{}, nil
	}
	colorBy := ps.ColorBy
	if colorBy == "" {
		for _, k := range keys {
			if !slices.Contains(ps.MarkerBy, k) && (colorBy == "" || len(values[k]) > len(values[colorBy])) {
				colorBy = k
			}
		}
	}
	markerBy := ps.MarkerBy
	if len(markerBy) == 0 {
		for _, k := range keys {
			if k != colorBy {
				markerBy = append(markerBy, k)
			}
		}
	}
	if slices.Contains(markerBy, colorBy) {
		return figureEncoding{}, fmt.Errorf("plots.marker_by: %q is also plots.color_by", colorBy)
	}
	e := figureEncoding{styles: map[string]*plots.Style{}, key: &plots.Key{}}
	var colors, shapes []string
	seen := map[plots.Style]string{}
	for _, g := range gs {
		m := groupSettings(g)
		c := m[colorBy]
		var parts []string
		for _, k := range markerBy {
			// An empty value, or a numeric 0 (a setting the cell leaves unset or does not use,
			// as newLabeler says), is no marker value.
			if v := m[k]; v != "" {
				if x, err := strconv.ParseFloat(v, 64); err != nil || x != 0 {
					parts = append(parts, k+"="+v)
				}
			}
		}
		shape := strings.Join(parts, ",")
		if !slices.Contains(colors, c) {
			colors = append(colors, c)
			e.key.Colors = append(e.key.Colors, plots.KeyEntry{Name: valueName(lb, colorBy+"="+c, []string{colorBy}), Index: len(colors) - 1})
		}
		if !slices.Contains(shapes, shape) {
			shapes = append(shapes, shape)
			e.key.Shapes = append(e.key.Shapes, plots.KeyEntry{Name: valueName(lb, shape, markerBy), Index: len(shapes) - 1})
		}
		st := plots.Style{Color: slices.Index(colors, c), Shape: slices.Index(shapes, shape)}
		look := plots.Style{Color: st.Color % plots.DistinctColors, Shape: st.Shape % plots.DistinctShapes}
		if other, ok := seen[look]; ok {
			if written {
				return figureEncoding{}, fmt.Errorf("plots.color_by %q and plots.marker_by %q draw cells %s and %s alike (%d colours, %d shapes)",
					colorBy, strings.Join(markerBy, ", "), other, g, plots.DistinctColors, plots.DistinctShapes)
			}
			return figureEncoding{}, nil
		}
		seen[look] = g
		e.styles[g] = &st
	}
	if len(colors) > plots.DistinctColors || len(shapes) > plots.DistinctShapes { // the legend would repeat a colour or shape
		if written {
			return figureEncoding{}, fmt.Errorf("plots.color_by %q and plots.marker_by %q need %d colours and %d shapes; the figures have %d and %d",
				colorBy, strings.Join(markerBy, ", "), len(colors), len(shapes), plots.DistinctColors, plots.DistinctShapes)
		}
		return figureEncoding{}, nil
	}
	return e, nil
}

// valueName names values ("variant=logq", "logq_probability=inclusion,temperature=0.07") in a
// legend by factor: their labels joined; values whose labels are all hidden as written
// ("declare=law": a legend entry needs a name even where the cells' labels leave it out, and two
// hidden values must not both read alike); for none (empty or zero: unset, or not used by the
// cells), the axes they are values of and "none" ("logq_probability, τ: none").
func valueName(lb labeler, values string, axes []string) string {
	if parts := lb.parts(values); len(parts) > 0 {
		return strings.Join(parts, ", ")
	}
	var written []string
	for _, p := range strings.Split(values, ",") {
		k, v, _ := strings.Cut(p, "=")
		if name, ok := lb.named(k, v); ok && name == "" {
			written = append(written, p)
		}
	}
	if len(written) > 0 {
		return strings.Join(written, ", ")
	}
	names := make([]string, len(axes))
	for i, k := range axes {
		names[i] = axisSymbol(k)
	}
	return strings.Join(names, ", ") + ": none"
}

// gridAxes lists the axes of the groups gs in run-id order (a group's id leaves out the axes it
// has no value for, so an axis first seen in a later group goes right after the axis before it
// there), and each axis's values in grid order.
func gridAxes(gs []string) (keys []string, values map[string][]string) {
	values = map[string][]string{}
	for _, g := range gs {
		if g == "" {
			continue
		}
		at := 0 // where an axis new in g goes: after g's previous axis
		for _, p := range strings.Split(g, ",") {
			k, v, _ := strings.Cut(p, "=")
			if i := slices.Index(keys, k); i >= 0 {
				at = i + 1
			} else {
				keys = slices.Insert(keys, at, k)
				at++
			}
			if !slices.Contains(values[k], v) {
				values[k] = append(values[k], v)
			}
		}
	}
	return keys, values
}
