package plots

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestLinesErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	xy := Labels{X: "training step", Y: "TV distance"}
	ok := LineSeries{Name: "α = 0.01", X: []float64{0, 1, 2}, Y: []float64{0.9, 0.5, 0.2}}
	one := func(ls LineSeries) []LineSeries { return []LineSeries{ls} }
	for _, tc := range []struct {
		name   string
		series []LineSeries
		l      Labels
		o      LineOptions
		want   string
	}{
		{"no series", nil, xy, LineOptions{}, "no line series"},
		{"no points", one(LineSeries{Name: "a"}), xy, LineOptions{}, `series "a" has no points`},
		{"short Y", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1}}), xy, LineOptions{},
			`series "a": len(Y) = 1, want len(X) = 2`},
		{"single point", one(LineSeries{Name: "a", X: []float64{1}, Y: []float64{1}}), xy, LineOptions{},
			`series "a" has a single point, which shows only with Markers`},
		{"NaN X", one(LineSeries{Name: "a", X: []float64{1, nan}, Y: []float64{1, 2}}), xy, LineOptions{},
			`series "a": X[1] is NaN`},
		{"decreasing X", one(LineSeries{Name: "a", X: []float64{1, 3, 2}, Y: []float64{1, 2, 3}}), xy, LineOptions{},
			`series "a": X must increase strictly, but X[2] = 2 follows X[1] = 3`},
		{"repeated X", one(LineSeries{Name: "a", X: []float64{1, 1}, Y: []float64{1, 2}}), xy, LineOptions{},
			`X must increase strictly, but X[1] = 1 follows X[0] = 1`},
		{"NaN Y", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{nan, 2}}), xy, LineOptions{},
			`series "a", X[0] = 1: Y is NaN`},
		{"Inf Y", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1, inf}}), xy, LineOptions{},
			`series "a", X[1] = 2: Y is +Inf`},
		{"Hi without Lo", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, Hi: []float64{2, 3}}), xy,
			LineOptions{}, `series "a": Lo and Hi must be given together`},
		{"short band", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{0}, Hi: []float64{2}}),
			xy, LineOptions{}, `series "a": len(Lo) = 1, len(Hi) = 1, want len(Y) = 2`},
		{"band misses line", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2},
			Lo: []float64{0, 0}, Hi: []float64{2, 1.5}}), xy, LineOptions{},
			`series "a", X[1] = 2: interval [Lo, Hi] = [0, 1.5] does not contain Y = 2`},
		{"NaN Lo", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2},
			Lo: []float64{nan, 0}, Hi: []float64{2, 3}}), xy, LineOptions{}, `series "a", X[0] = 1: Lo is NaN`},
		{"log y, zero", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1, 0}}), xy, LineOptions{LogY: true},
			`series "a", X[1] = 2: value 0, but a log y axis needs positive values`},
		{"log y, negative Lo", one(LineSeries{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2},
			Lo: []float64{-0.5, 1}, Hi: []float64{2, 3}}), xy, LineOptions{LogY: true},
			`series "a", X[0] = 1: value -0.5, but a log y axis needs positive values`},
		{"log x, zero", one(LineSeries{Name: "a", X: []float64{0, 2}, Y: []float64{1, 2}}), xy, LineOptions{LogX: true},
			`series "a": X[0] = 0, but a log x axis needs positive values`},
		{"unnamed among several", []LineSeries{ok, {X: []float64{1, 2}, Y: []float64{1, 2}}}, xy, LineOptions{},
			"series 1 has no name"},
		{"repeated name", []LineSeries{ok, ok}, xy, LineOptions{}, `series "α = 0.01" appears twice`},
		{"no x label", one(ok), Labels{Y: "TV distance"}, LineOptions{}, "labels: X is empty"},
		{"no y label", one(ok), Labels{X: "step"}, LineOptions{}, "labels: Y is empty"},
		{"y label too long", one(ok), Labels{X: "step", Y: strings.Repeat("total variation ", 10)}, LineOptions{},
			"labels: Y"},
	} {
		p, err := Lines(tc.series, tc.l, tc.o, Settings{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
		if p != nil {
			t.Errorf("%s: got a plot with the error", tc.name)
		}
	}
	if _, err := Lines(one(ok), xy, LineOptions{}, Settings{Font: "mono"}); err == nil ||
		!strings.HasPrefix(err.Error(), `plots: settings: font: unknown "mono"`) {
		t.Errorf("bad settings: error %v", err)
	}
}

func TestLinesAxes(t *testing.T) {
	// One unnamed series of a single point, with markers: no legend, and axes around the point.
	p, err := Lines([]LineSeries{{X: []float64{0.07}, Y: []float64{0.3}}},
		Labels{X: "temperature", Y: "Recall@10"}, LineOptions{Markers: true, LogX: true}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// x: [0.035, 0.14] widened to 1-2-5 values: [0.02, 0.2]; y: [0.15, 0.45] widened to
	// multiples of 0.05 (0.3 / 6 = 0.05): [0.15, 0.45].
	for _, c := range []struct {
		axis           string
		gotLo, gotHi   float64
		wantLo, wantHi float64
	}{
		{"x", p.X.Min, p.X.Max, 0.02, 0.2},
		{"y", p.Y.Min, p.Y.Max, 0.15, 0.45},
	} {
		if math.Abs(c.gotLo-c.wantLo) > 1e-12 || math.Abs(c.gotHi-c.wantHi) > 1e-12 {
			t.Errorf("%s axis [%v, %v], want [%v, %v]", c.axis, c.gotLo, c.gotHi, c.wantLo, c.wantHi)
		}
	}

	// The y axis of the TV figure ends on labelled ticks, the x axis spans the data.
	p, err = Lines(tvSeries(), Labels{X: "training step", Y: "TV distance"}, LineOptions{}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Min != 0 || p.X.Max != 19900 {
		t.Errorf("x axis [%v, %v], want the data's [0, 19900]", p.X.Min, p.X.Max)
	}
	ticks := labelled(p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max))
	if ticks[0] != "0.0" || ticks[len(ticks)-1] != "1.0" {
		t.Errorf("y tick labels %q, want 0.0 … 1.0", ticks)
	}
}

// TestLinesExtremeValues draws values near the largest float64, whose range overflows: the
// figure is drawn (without labelled y ticks) rather than hanging or panicking.
func TestLinesExtremeValues(t *testing.T) {
	s := Settings{DPI: 50}
	p, err := Lines([]LineSeries{{X: []float64{0, 1}, Y: []float64{-1e308, 1e308}}}, Labels{X: "x", Y: "y"}, LineOptions{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Save(p, filepath.Join(t.TempDir(), "extreme"), s); err != nil {
		t.Fatal(err)
	}
	if ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max); len(ticks) != 0 {
		t.Errorf("%d ticks on [%v, %v]", len(ticks), p.Y.Min, p.Y.Max)
	}
}

func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi         float64
		niceLo, niceHi float64
		labels         []string
	}{
		// Steps from the rule: smallest of {1, 2, 2.5, 5}·10^k with at most 6 intervals
		// between multiples around the range.
		{0, 0.44, 0, 0.5, []string{"0.0", "0.1", "0.2", "0.3", "0.4"}},
		{0.03, 0.95, 0, 1, []string{"0.2", "0.4", "0.6", "0.8"}},
		{-0.07, 0.42, -0.1, 0.5, []string{"0.0", "0.1", "0.2", "0.3", "0.4"}},
		{0, 19900, 0, 20000, []string{"0", "5000", "10000", "15000"}},
		{0.1, 1.3, 0, 1.5, []string{"0.25", "0.50", "0.75", "1.00", "1.25"}},
		{2.3, 6.2, 2, 7, []string{"3", "4", "5", "6"}},
		{1e6, 3.2e6, 1e6, 3.5e6, []string{"1e+06", "1.5e+06", "2e+06", "2.5e+06", "3e+06"}},
		{-3e-5, 2e-5, -3e-5, 2e-5, []string{"-3e-05", "-2e-05", "-1e-05", "0", "1e-05", "2e-05"}},
	} {
		lo, hi := niceLinear(tc.lo, tc.hi)
		if math.Abs(lo-tc.niceLo) > 1e-9*math.Abs(tc.niceHi) || math.Abs(hi-tc.niceHi) > 1e-9*math.Abs(tc.niceHi) {
			t.Errorf("niceLinear(%v, %v) = [%v, %v], want [%v, %v]", tc.lo, tc.hi, lo, hi, tc.niceLo, tc.niceHi)
		}
		if got := labelled(linearTicks{}.Ticks(tc.lo, tc.hi)); !slices.Equal(got, tc.labels) {
			t.Errorf("ticks on [%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.labels)
		}
	}
	if lo, hi := niceLinear(0, 0); lo != 0 || hi != 1 {
		t.Errorf("niceLinear(0, 0) = [%v, %v], want [0, 1]", lo, hi)
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi         float64
		niceLo, niceHi float64
		labels         []string
	}{
		// 1-2-5 labels while they number at most 7, else powers of ten.
		{0.021, 0.048, 0.02, 0.05, nil},
		{0.02, 0.5, 0.02, 0.5, []string{"0.02", "0.05", "0.1", "0.2", "0.5"}},
		{0.05, 6.6, 0.01, 10, []string{"0.1", "1"}},
		{3e-6, 4e-2, 1e-6, 0.1, []string{"1e-05", "0.0001", "0.001", "0.01"}},
		{120, 4e6, 100, 1e7, []string{"1000", "10000", "100000", "1e+06"}},
		// 13 powers of ten: every second one is labelled.
		{1e-12, 1, 1e-12, 1, []string{"1e-12", "1e-10", "1e-08", "1e-06", "0.0001", "0.01", "1"}},
	} {
		lo, hi := niceLog(tc.lo, tc.hi)
		if math.Abs(lo/tc.niceLo-1) > 1e-9 || math.Abs(hi/tc.niceHi-1) > 1e-9 {
			t.Errorf("niceLog(%v, %v) = [%v, %v], want [%v, %v]", tc.lo, tc.hi, lo, hi, tc.niceLo, tc.niceHi)
		}
		if got := labelled(logTicks{}.Ticks(tc.lo, tc.hi)); !slices.Equal(got, tc.labels) {
			t.Errorf("ticks on [%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.labels)
		}
		// On the widened range every labelled value of the rule is a tick, both ends included.
		ticks := labelled(logTicks{}.Ticks(lo, hi))
		if len(ticks) < 2 || ticks[0] != formatLog(lo) || ticks[len(ticks)-1] != formatLog(hi) {
			t.Errorf("ticks on widened [%v, %v]: %q, want both ends labelled", lo, hi, ticks)
		}
	}
	for v, want := range map[float64]string{1e-5: "1e-05", 2e-4: "0.0002", 0.05: "0.05", 1: "1", 50: "50", 2e5: "200000", 1e6: "1e+06"} {
		if got := formatLog(v); got != want {
			t.Errorf("formatLog(%v) = %q, want %q", v, got, want)
		}
	}
}

// labelled returns the labels of the labelled ticks, in order of value.
func labelled(ticks []plot.Tick) []string {
	var out []string
	for _, tk := range ticks {
		if !tk.IsMinor() {
			out = append(out, tk.Label)
		}
	}
	return out
}

// TestNarrowLogTicks: a log x axis labels no more values than a linear axis of its width has
// ticks, so that the labels of a learning rate swept over [1e-4, 1e-2] do not run into each
// other in a 1.75 in panel (one of two at column width), where a column-wide figure labels 1, 2
// and 5 times each power of ten.
func TestNarrowLogTicks(t *testing.T) {
	series := []LineSeries{{Name: "logq", X: []float64{1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2}, Y: []float64{1, 2, 3, 4, 5, 6, 7}}}
	for _, tc := range []struct {
		width float64
		want  string
	}{
		{1.75, "0.0001 0.001 0.01"},
		{DefaultWidth, "0.0001 0.0002 0.0005 0.001 0.002 0.005 0.01"},
	} {
		t.Run(fmt.Sprint(tc.width), func(t *testing.T) {
			_, p, _, err := linePlot(series, Labels{X: "learning rate", Y: "Recall@10"}, LineOptions{LogX: true},
				Settings{Width: tc.width}, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(labelled(p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)), " "); got != tc.want {
				t.Errorf("labels %s, want %s", got, tc.want)
			}
		})
	}
}
