package plots

import (
	"math"
	"strings"
	"testing"
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
