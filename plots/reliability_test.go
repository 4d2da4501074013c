package plots

import (
	"errors"
	"strings"
	"testing"
)

// TestReliabilityErrors: bad series are one error naming the series and the bin; a figure too
// narrow for two panels side by side stacks them and, too low for two rows, asks for the height;
// a single series needs no name.
func TestReliabilityErrors(t *testing.T) {
	l := Labels{X: "est. p", Y: "p"}
	for _, c := range []struct {
		name   string
		series []ReliabilitySeries
		counts string
		want   string
	}{
		{"lengths", []ReliabilitySeries{{Name: "a", Predicted: []float64{0.1, 0.2}, True: []float64{0.1}, Pairs: []float64{1, 1}}}, "n",
			`series "a": 2 predicted, 1 true and 2 pair counts`},
		{"pairs", []ReliabilitySeries{{Name: "a", Predicted: []float64{0.1, 0.2}, True: []float64{0.1, 0.2}, Pairs: []float64{1, 0}}}, "n",
			`series "a": bin 1 has 0 pairs`},
		{"log axis", []ReliabilitySeries{{Name: "a", Predicted: []float64{0, 0.2}, True: []float64{0.1, 0.2}, Pairs: []float64{1, 1}}}, "n",
			"a log x axis needs positive values"},
		{"counts label", reliabilitySeries(), "", "counts panel's y label is empty"},
	} {
		_, err := Reliability(c.series, l, c.counts, Settings{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	_, err := Reliability(reliabilitySeries(), l, "n", Settings{Width: 3, Height: 2.5})
	var le *LayoutError
	if !errors.As(err, &le) || le.Height != 3.2 {
		t.Errorf("3 × 2.5 in: %v, want a layout error asking for 3.2 in of height (two rows of panels)", err)
	}
	if _, err := Reliability(reliabilitySeries(), l, "n", Settings{Width: 3, Height: 3.4}); err != nil {
		t.Errorf("3 × 3.4 in, the panels stacked: %v", err)
	}
	one := reliabilitySeries()[:1]
	one[0].Name = ""
	if _, err := Reliability(one, l, "n", Settings{}); err != nil {
		t.Errorf("a single unnamed series: %v", err)
	}
}
