package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// TestFitNeverFails checks that a figure whose legend or labels cannot fit the size asked for
// is still drawn, another way, with a note saying so; and that a figure that fits is drawn as
// asked, without a note.
func TestFitNeverFails(t *testing.T) {
	names := func(format string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(format, i)
		}
		return out
	}
	bars := func(series []string, l Labels) func(Settings) (*plot.Plot, error) {
		return func(s Settings) (*plot.Plot, error) {
			d := BarData{Groups: []string{"head", "torso", "tail", "all"}}
			for i, n := range series {
				v := 0.1 + 0.01*float64(i)
				d.Series = append(d.Series, BarSeries{Name: n, Values: []float64{v, v, v, v}})
			}
			return GroupedBars(d, l, s)
		}
	}
	for _, tc := range []struct {
		name       string
		build      func(Settings) (*plot.Plot, error)
		s          Settings
		wantNote   string // "" for none
		wantLegend Legend
		bigger     bool // drawn larger than asked
	}{
		{"fits", bars(names("v%d", 4), Labels{Y: "Recall@10"}), Settings{}, "", LegendTop, false},
		// A legend too tall to stand above: 45 cells whose 3×15 grid needs 2.19 in of a 2.6 in figure, and
		// is too wide to stand beside it.
		{"45 long names", bars(names("uniform sampling, tail weights, τ=0.%d", 45), Labels{Y: "Recall@10"}), Settings{},
			"more than 35% of the figure's height", LegendTop, true},
		{"beside the plot", bars(names("cell %d", 28), Labels{Y: "Recall@10"}), Settings{},
			"drawn with the legend beside the plot instead", LegendRight, false},
		{"right asked, does not fit", bars(names("in-batch sampling, importance weights %d", 3), Labels{Y: "Recall@10"}),
			Settings{Legend: LegendRight}, "drawn with the legend above the plot instead", LegendTop, false},
		{"x label too long", bars(names("v%d", 2), Labels{Y: "Recall@10", X: strings.Repeat("popularity slice ", 8)}), Settings{},
			"labels: X", LegendTop, true},
		{"entry wider than the figure", bars(names(strings.Repeat("a very long series name ", 5)+"%d", 2), Labels{Y: "Recall@10"}),
			Settings{Width: 2}, "wider than the figure", LegendTop, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.DPI = 100 // enough to check the size, and fast
			p, used, note, err := Fit(tc.build, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantNote == "" && note != "" || !strings.Contains(note, tc.wantNote) {
				t.Errorf("note %q, want one containing %q", note, tc.wantNote)
			}
			if used.Legend != tc.wantLegend {
				t.Errorf("legend %s, want %s", used.Legend, tc.wantLegend)
			}
			asked := tc.s
			if err := asked.Resolve(); err != nil {
				t.Fatal(err)
			}
			if bigger := used.Width > asked.Width || used.Height > asked.Height; bigger != tc.bigger {
				t.Errorf("drawn at %v × %v in, asked %v × %v in", used.Width, used.Height, asked.Width, asked.Height)
			}
			if tc.bigger && !strings.Contains(note, fmt.Sprintf("drawn at %.1f × %.1f in", used.Width, used.Height)) {
				t.Errorf("note %q does not give the size drawn", note)
			}
			// The figure is saved at the size used.
			img, err := png.Decode(bytes.NewReader(renderPNG(t, p, used)))
			if err != nil {
				t.Fatal(err)
			}
			if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != int(math.Round(used.Width*float64(used.DPI))) ||
				h != int(math.Round(used.Height*float64(used.DPI))) {
				t.Errorf("PNG %d×%d px, want %v × %v in at %d dpi", w, h, used.Width, used.Height, used.DPI)
			}
		})
	}
	// An error other than a layout one is returned as it is.
	bad := func(s Settings) (*plot.Plot, error) {
		return Lines([]LineSeries{{X: []float64{0, 1}, Y: []float64{0, math.NaN()}}}, Labels{X: "x", Y: "y"}, LineOptions{}, s)
	}
	var le *LayoutError
	if _, _, _, err := Fit(bad, Settings{}); err == nil || errors.As(err, &le) {
		t.Errorf("NaN data: error %v", err)
	}
}

func TestTradeoffErrors(t *testing.T) {
	ok := func() TradeoffSeries {
		return TradeoffSeries{Name: "a", X: []float64{0.1, 0.2}, Y: []float64{0.3, 0.2}}
	}
	for _, tc := range []struct {
		name   string
		series func() []TradeoffSeries
		want   string
	}{
		{"none", func() []TradeoffSeries { return nil }, "plots: no trade-off series"},
		{"no points", func() []TradeoffSeries { s := ok(); s.X, s.Y = nil, nil; return []TradeoffSeries{s} }, `plots: series "a" has no points`},
		{"lengths", func() []TradeoffSeries { s := ok(); s.Y = s.Y[:1]; return []TradeoffSeries{s} }, `plots: series "a": len(Y) = 1, want len(X) = 2`},
		{"tags", func() []TradeoffSeries { s := ok(); s.Tags = []string{"x"}; return []TradeoffSeries{s} }, `plots: series "a": len(Tags) = 1, want len(X) = 2`},
		{"origin", func() []TradeoffSeries { s := ok(); s.Origin = 2; return []TradeoffSeries{s} }, `plots: series "a": Origin = 2, want an index of its 2 points`},
		{"NaN", func() []TradeoffSeries { s := ok(); s.Y[1] = math.NaN(); return []TradeoffSeries{s} }, `plots: series "a", point 1: Y is NaN`},
		{"interval", func() []TradeoffSeries {
			s := ok()
			s.XLo, s.XHi = []float64{0.05, 0.25}, []float64{0.15, 0.3}
			return []TradeoffSeries{s}
		}, `plots: series "a", point 1: interval [Lo, Hi] = [0.25, 0.3] does not contain X = 0.2`},
		{"two unnamed", func() []TradeoffSeries { a, b := ok(), ok(); a.Name, b.Name = "", "b"; return []TradeoffSeries{a, b} }, "plots: series 0 has no name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Tradeoff(tc.series(), Labels{X: "tail", Y: "head"}, Settings{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestYRange checks the y axis of bars under each plots.y_range: from 0 by default and with
// "zero", from a tick below the lowest interval with "data"; and of lines: fitted by default,
// from 0 with "zero".
func TestYRange(t *testing.T) {
	for _, tc := range []struct {
		yr             YRange
		barLo, barHi   float64
		lineLo, lineHi float64
	}{
		// recallNear1 spans [0.81, 0.91] with its intervals; the line spans [0.5, 0.9].
		{"", 0, 1, 0.5, 0.9},
		{YRangeZero, 0, 1, 0, 1},
		{YRangeData, 0.8, 0.92, 0.5, 0.9},
	} {
		s := Settings{YRange: tc.yr}
		p, err := GroupedBars(recallNear1(), Labels{Y: "Recall@300"}, s)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Y.Min-tc.barLo) > 1e-9 || math.Abs(p.Y.Max-tc.barHi) > 1e-9 {
			t.Errorf("y_range %q: bars' y axis [%v, %v], want [%v, %v]", tc.yr, p.Y.Min, p.Y.Max, tc.barLo, tc.barHi)
		}
		p, err = Lines([]LineSeries{{X: []float64{1, 2}, Y: []float64{0.5, 0.9}}}, Labels{X: "x", Y: "y"}, LineOptions{}, s)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Y.Min-tc.lineLo) > 1e-9 || math.Abs(p.Y.Max-tc.lineHi) > 1e-9 {
			t.Errorf("y_range %q: line's y axis [%v, %v], want [%v, %v]", tc.yr, p.Y.Min, p.Y.Max, tc.lineLo, tc.lineHi)
		}
	}
}

// TestArrowhead: an arrowhead sits midway along its segment with its tip towards the segment's
// end, whatever the direction, and a segment shorter than three arrow lengths gets none.
func TestArrowhead(t *testing.T) {
	const size = 4
	for _, c := range []struct{ from, to vg.Point }{
		{vg.Point{X: 0, Y: 0}, vg.Point{X: 100, Y: 0}},
		{vg.Point{X: 100, Y: 50}, vg.Point{X: 0, Y: 0}},
		{vg.Point{X: 10, Y: 90}, vg.Point{X: 10, Y: 10}},
	} {
		head, ok := arrowhead(c.from, c.to, size)
		if !ok {
			t.Fatalf("%v → %v: no arrowhead", c.from, c.to)
		}
		mid := vg.Point{X: (c.from.X + c.to.X) / 2, Y: (c.from.Y + c.to.Y) / 2}
		dir := vg.Point{X: c.to.X - c.from.X, Y: c.to.Y - c.from.Y}
		along := func(q vg.Point) float64 { return float64((q.X-mid.X)*dir.X + (q.Y-mid.Y)*dir.Y) }
		if !(along(head[0]) > 0 && along(head[1]) < 0 && along(head[2]) < 0) {
			t.Errorf("%v → %v: arrowhead %v does not point to the end", c.from, c.to, head)
		}
		if d := math.Hypot(float64(head[0].X-mid.X), float64(head[0].Y-mid.Y)); math.Abs(d-size/2) > 1e-9 {
			t.Errorf("%v → %v: tip %v from the middle, want %v", c.from, c.to, d, size/2.0)
		}
	}
	if _, ok := arrowhead(vg.Point{}, vg.Point{X: 3 * size * 0.99}, size); ok {
		t.Error("an arrowhead on a segment shorter than three lengths")
	}
}

// TestTradeoffAxesFitData: the trade-off figure's axes end within 4% of the data's span beyond
// it (0.072 and 0.253 in tradeoffSeries without intervals), not at the next round tick (0.08,
// 0.3).
func TestTradeoffAxesFitData(t *testing.T) {
	series := tradeoffSeries()
	for i := range series {
		series[i].XLo, series[i].XHi, series[i].YLo, series[i].YHi = nil, nil, nil, nil
	}
	p, err := Tradeoff(series, Labels{X: "tail", Y: "head"}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name           string
		got, lo, hi    float64
		dataLo, dataHi float64
	}{
		{"x", 0, p.X.Min, p.X.Max, 0.024, 0.072},
		{"y", 0, p.Y.Min, p.Y.Max, 0.002, 0.253},
	} {
		pad := 0.04 * (c.dataHi - c.dataLo)
		if math.Abs(c.lo-(c.dataLo-pad)) > 1e-12 || math.Abs(c.hi-(c.dataHi+pad)) > 1e-12 {
			t.Errorf("%s axis [%v, %v], want [%v, %v]", c.name, c.lo, c.hi, c.dataLo-pad, c.dataHi+pad)
		}
	}
}

// TestPanelsNeverWiden: a panel title too long for a quarter of a 7 in figure moves panels to
// further rows (a taller figure) rather than widen the figure fourfold.
func TestPanelsNeverWiden(t *testing.T) {
	long := "a panel title as long as a cell label with several axes"
	panels := familyPanels()
	panels = append(panels, panels...)
	for i := range panels {
		panels[i].Title = fmt.Sprintf("%s %d", long, i)
	}
	build := func(s Settings) (*plot.Plot, error) {
		return LinePanels(panels, Labels{X: "step", Y: "loss"}, LineOptions{}, s)
	}
	_, used, note, err := Fit(build, Settings{Width: 7, DPI: 50})
	if err != nil {
		t.Fatal(err)
	}
	if used.Width != 7 || used.Height <= DefaultHeight {
		t.Errorf("drawn at %v × %v in (%s), want 7 in wide and taller", used.Width, used.Height, note)
	}
}

// TestFitNoteDescribesFigure: a figure of 8 panels too low for their rows, which the legend beside
// the plot does not help and whose title is then too long for its width, is drawn at the height
// its rows of panels need and a little wider (not at the height of one panel a row, which fewer
// panels a row would need); its note gives the rows and columns drawn, the height they need and
// the size drawn.
func TestFitNoteDescribesFigure(t *testing.T) {
	var panels []LinePanel
	for i := range 4 {
		for _, pn := range familyPanels() {
			pn.Title = fmt.Sprintf("%s %d", pn.Title, i)
			panels = append(panels, pn)
		}
	}
	l := Labels{Title: "Along each curve (arrows) τ_LA = 0 → 0.5; large marker: as trained", X: "step", Y: "loss"}
	build := func(s Settings) (*plot.Plot, error) { return LinePanels(panels, l, LineOptions{}, s) }
	p, used, note, err := Fit(build, Settings{DPI: 50})
	if err != nil {
		t.Fatal(err)
	}
	cols := panelCols(len(panels), used)
	rows := (len(panels) + cols - 1) / cols
	if need := float64(rows) * minPanelHeight; cols != 2 || used.Height != need || used.Width <= DefaultWidth {
		t.Errorf("drawn at %v × %v in, %d rows of %d panels: want 2 panels a row, %v in high, wider than %v in", used.Width, used.Height, rows, cols, need, DefaultWidth)
	}
	for _, want := range []string{
		fmt.Sprintf("%d panels in %d rows of %d need %.1f in, more than the figure's height (%.2f in)", len(panels), rows, cols, used.Height, DefaultHeight),
		fmt.Sprintf("at %.1f × %.1f in, labels: Title", DefaultWidth, used.Height),
		fmt.Sprintf("drawn at %.1f × %.1f in instead of %.1f × %.1f in", used.Width, used.Height, DefaultWidth, DefaultHeight),
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q, want one containing %q", note, want)
		}
	}
	if img, err := png.Decode(bytes.NewReader(renderPNG(t, p, used))); err != nil {
		t.Fatal(err)
	} else if h := img.Bounds().Dy(); h != int(math.Round(used.Height*float64(used.DPI))) {
		t.Errorf("PNG %d px high, want %v in at %d dpi", h, used.Height, used.DPI)
	}
}
