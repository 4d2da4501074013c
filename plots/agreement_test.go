package plots

import (
	"strings"
	"testing"
)

// TestScatterPanels: a panel with the identity line has equal x and y ranges that hold every
// point and interval, so that y = x is the diagonal; bad input names the panel.
func TestScatterPanels(t *testing.T) {
	sampled, corrected := agreementSeries()
	th, p, _, err := tradeoffPlot(corrected, Labels{X: "full", Y: "estimate"}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	addIdentity(th, p)
	if p.X.Min != p.Y.Min || p.X.Max != p.Y.Max {
		t.Errorf("identity panel: x [%v, %v], y [%v, %v]", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	for _, ts := range corrected {
		if ts.XLo[0] < p.X.Min || ts.YLo[0] < p.Y.Min || ts.XHi[0] > p.X.Max || ts.YHi[0] > p.Y.Max {
			t.Errorf("%s outside the identity panel", ts.Name)
		}
	}
	if _, err := ScatterPanels([]ScatterPanel{{Title: "a", Series: sampled}, {Title: "b", Series: corrected, Identity: true}},
		Labels{X: "full", Y: "estimate"}, Settings{Width: 5}); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		panels []ScatterPanel
		want   string
	}{
		{nil, "plots: no panels"},
		{[]ScatterPanel{{Title: "empty"}}, `plots: panel 0 ("empty") has no series`},
		{[]ScatterPanel{{Title: "bad", Series: []TradeoffSeries{{Name: "a", X: []float64{1}, Y: []float64{}}}}}, `plots: panel 0 ("bad"):`},
	} {
		if _, err := ScatterPanels(tc.panels, Labels{X: "x", Y: "y"}, Settings{}); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
