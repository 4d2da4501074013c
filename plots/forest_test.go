package plots

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestForestErrors: a forest plot's input is checked, each error naming what is wrong.
func TestForestErrors(t *testing.T) {
	nan := math.NaN()
	ok := ForestRow{Label: "a − b", Mean: []float64{0.1, 0.2}, Lo: []float64{0, 0.1}, Hi: []float64{0.2, 0.3}}
	for _, tc := range []struct {
		name   string
		groups []string
		rows   []ForestRow
		want   string
	}{
		{"no rows", []string{"head", "tail"}, nil, "no rows"},
		{"length", []string{"head", "tail"}, []ForestRow{{Label: "x", Mean: []float64{1}, Lo: []float64{0}, Hi: []float64{2}}}, `row "x" has 1 values for 2 groups`},
		{"interval", []string{"head", "tail"}, []ForestRow{{Label: "x", Mean: []float64{1, 1}, Lo: []float64{0, 2}, Hi: []float64{2, 3}}}, `row "x", group tail: interval [2, 3] does not hold 1`},
		{"half interval", []string{"head", "tail"}, []ForestRow{{Label: "x", Mean: []float64{1, 1}, Lo: []float64{0, nan}, Hi: []float64{2, 3}}}, "group tail"},
		{"repeated row", []string{"head", "tail"}, []ForestRow{ok, ok}, "a − b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Forest(tc.groups, tc.rows, Labels{X: "difference"}, Settings{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Forest([]string{"head", "tail"}, []ForestRow{ok}, Labels{X: "difference"}, Settings{}); err != nil {
		t.Errorf("a valid forest plot: %v", err)
	}
}

// TestForestFit: rows whose labels leave the data area narrower than the x axis's label are a
// *LayoutError asking for a wider figure, which Fit then draws (legend placed the other way or
// the figure enlarged) with a data area that holds the label; short labels fit the default size.
func TestForestFit(t *testing.T) {
	row := func(label string) ForestRow {
		return ForestRow{Label: label, Mean: []float64{0.1, -0.05}, Lo: []float64{0, -0.1}, Hi: []float64{0.2, 0}}
	}
	long := []ForestRow{row("exact Q − count/N (variant=logq_corrected)"), row("corrected − old (declare=unigram)")}
	l := Labels{X: "Recall@10: A − B (paired by seed, 95% interval)"}
	s := Settings{Legend: LegendRight}
	_, err := Forest([]string{"head", "tail"}, long, l, s)
	var le *LayoutError
	if !errors.As(err, &le) || le.Width <= DefaultWidth {
		t.Fatalf("long row labels at %.1f in: error %v, want a *LayoutError asking for a wider figure", DefaultWidth, err)
	}
	_, fs, note, err := Fit(func(s Settings) (*plot.Plot, error) { return Forest([]string{"head", "tail"}, long, l, s) }, s)
	if err != nil || note == "" {
		t.Fatalf("Fit: %v (note %q)", err, note)
	}
	if fs.Legend == LegendRight && fs.Width < le.Width {
		t.Errorf("Fit kept the legend beside the plot at %.1f in, narrower than the %.1f in asked for", fs.Width, le.Width)
	}
	if _, err := Forest([]string{"head", "tail"}, []ForestRow{row("a − b")}, Labels{X: "difference"}, Settings{}); err != nil {
		t.Errorf("short labels: %v", err)
	}
}
