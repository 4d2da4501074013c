package plots

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestLinePanelsErrors: invalid panels are errors naming the panel and the series.
func TestLinePanelsErrors(t *testing.T) {
	l := Labels{X: "step", Y: "loss"}
	good := familyPanels()
	restyled := familyPanels()
	restyled[1].Series[0].Name = "plain" // plain again, in another style
	for _, tc := range []struct {
		name   string
		panels []LinePanel
		want   string
	}{
		{"none", nil, "plots: no panels"},
		{"empty panel", []LinePanel{good[0], {Title: "logistic"}}, `plots: panel 1 ("logistic") has no series`},
		{"restyled", restyled, `plots: panel 1 ("logistic"): series "plain" has style {Color:2 Shape:2}, in an earlier panel {Color:0 Shape:0}`},
		{"bad series", []LinePanel{{Title: "x", Series: []LineSeries{{Name: "a", X: []float64{1, 0}, Y: []float64{1, 2}}}}}, `plots: panel 0 ("x"):`},
		{"unnamed among several", []LinePanel{{Title: "a", Series: []LineSeries{{X: []float64{1}, Y: []float64{1}}}}, good[1]},
			"plots: a series without a name among several"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LinePanels(tc.panels, l, LineOptions{Markers: true}, Settings{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLinePanelsLegend: the figure's legend has one entry per distinct series name, in the
// order of first appearance, however many panels show the series.
func TestLinePanelsLegend(t *testing.T) {
	panels := familyPanels()
	panels = append(panels, LinePanel{Title: "again", Series: panels[0].Series})
	_, entries, err := linePanels(panels, Labels{X: "step", Y: "loss"}, LineOptions{}, Settings{Width: 7})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.name)
	}
	if got := strings.Join(names, ","); got != "plain,logQ,nce" {
		t.Errorf("legend entries %s, want plain,logQ,nce", got)
	}
}

// TestLinePanelsFit: panels that do not fit the figure's height in one row ask for a taller
// figure, which Fit draws, saying so.
func TestLinePanelsFit(t *testing.T) {
	four := append(familyPanels(), familyPanels()...)
	four[2].Title, four[3].Title = "softmax, again", "logistic, again"
	build := func(s Settings) (*plot.Plot, error) {
		return LinePanels(four, Labels{X: "step", Y: "loss"}, LineOptions{}, s)
	}
	_, err := build(Settings{Width: 3.5, Height: 2.6}) // 2 columns, so 2 rows of 1.6 in
	var le *LayoutError
	if !errors.As(err, &le) || le.Height != 2*minPanelHeight {
		t.Fatalf("error %v, want a LayoutError asking for %v in", err, 2*minPanelHeight)
	}
	p, used, note, err := Fit(build, Settings{Width: 3.5, Height: 2.6})
	if err != nil || p == nil || used.Height < 2*minPanelHeight || !strings.Contains(note, "drawn at 3.5 × 3.2 in") {
		t.Errorf("Fit: %v, height %v, note %q", err, used.Height, note)
	}
}

// TestNarrowTicks: the x axis of a narrow panel gets fewer labelled ticks, so that its labels do
// not run into each other: a 1.75 in panel (one of four at 7 in) labels [0.07, 0.1] every 0.01,
// where a column-wide figure labels it every 0.005.
func TestNarrowTicks(t *testing.T) {
	for _, tc := range []struct {
		width float64
		want  string
	}{
		{1.75, "0.07 0.08 0.09 0.10"},
		{DefaultWidth, "0.070 0.075 0.080 0.085 0.090 0.095 0.100"},
	} {
		var labels []string
		for _, tk := range (linearTicks{intervals: intervalsFor(tc.width)}).Ticks(0.07, 0.1) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("%v in: ticks %s, want %s", tc.width, got, tc.want)
		}
	}
}
