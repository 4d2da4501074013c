package plots

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestGroupedBarsErrors(t *testing.T) {
	nan := math.NaN()
	groups := []string{"head", "tail"}
	one := func(bs BarSeries) BarData { return BarData{Groups: groups, Series: []BarSeries{bs}} }
	ok := BarSeries{Name: "plain", Values: []float64{0.3, 0.1}, Lo: []float64{0.2, 0.05}, Hi: []float64{0.4, 0.15}}
	y := Labels{Y: "Recall@10"}
	for _, tc := range []struct {
		name string
		d    BarData
		l    Labels
		s    Settings
		want string
	}{
		{"no groups", BarData{Series: []BarSeries{{Name: "a"}}}, y, Settings{}, "bar data has no groups"},
		{"unnamed group", BarData{Groups: []string{"head", ""}, Series: []BarSeries{ok}}, y, Settings{}, "group 1 has no name"},
		{"repeated group", BarData{Groups: []string{"head", "head"}, Series: []BarSeries{ok}}, y, Settings{}, `group "head" appears twice`},
		{"no series", BarData{Groups: groups}, y, Settings{}, "bar data has no series"},
		{"unnamed among several", BarData{Groups: groups, Series: []BarSeries{ok, {Values: []float64{1, 2}}}}, y, Settings{},
			"series 1 has no name"},
		{"repeated series", BarData{Groups: groups, Series: []BarSeries{ok, ok}}, y, Settings{}, `series "plain" appears twice`},
		{"short values", one(BarSeries{Name: "a", Values: []float64{1}}), y, Settings{}, `series "a": 1 values for 2 groups`},
		{"NaN value", one(BarSeries{Name: "a", Values: []float64{0.1, nan}}), y, Settings{},
			`series "a", group "tail": Values is NaN`},
		{"Inf value", one(BarSeries{Name: "a", Values: []float64{math.Inf(-1), 0}}), y, Settings{},
			`series "a", group "head": Values is -Inf`},
		{"Lo without Hi", one(BarSeries{Name: "a", Values: []float64{1, 2}, Lo: []float64{0, 1}}), y, Settings{},
			`series "a": Lo and Hi must be given together`},
		{"short Hi", one(BarSeries{Name: "a", Values: []float64{1, 2}, Lo: []float64{0, 1}, Hi: []float64{3}}), y, Settings{},
			`series "a": len(Lo) = 2, len(Hi) = 1, want len(Values) = 2`},
		{"NaN Hi", one(BarSeries{Name: "a", Values: []float64{1, 2}, Lo: []float64{0, 1}, Hi: []float64{3, nan}}), y, Settings{},
			`series "a", group "tail": Hi is NaN`},
		{"interval misses value", one(BarSeries{Name: "a", Values: []float64{1, 2}, Lo: []float64{0, 2.5}, Hi: []float64{3, 3}}),
			y, Settings{}, `series "a", group "tail": interval [Lo, Hi] = [2.5, 3] does not contain Values = 2`},
		{"swapped interval", one(BarSeries{Name: "a", Values: []float64{1, 2}, Lo: []float64{3, 3}, Hi: []float64{0, 1}}),
			y, Settings{}, `series "a", group "head": interval [Lo, Hi] = [3, 0] does not contain Values = 1`},
		{"no y label", one(ok), Labels{}, Settings{}, "labels: Y is empty"},
		{"title too long", one(ok), Labels{Y: "Recall@10", Title: strings.Repeat("Recall by slice ", 8)}, Settings{},
			"labels: Title"},
		{"legend entry too long", one(BarSeries{Name: strings.Repeat("in-batch sampling ", 6), Values: []float64{1, 2}}),
			y, Settings{}, "legend entry"},
		{"bad settings", one(ok), y, Settings{DPI: 5}, "settings: dpi: must be in [50, 1200], got 5"},
	} {
		p, err := GroupedBars(tc.d, tc.l, tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
		if p != nil {
			t.Errorf("%s: got a plot with the error", tc.name)
		}
	}
}

func TestGroupedBarsAxes(t *testing.T) {
	// A single unnamed series (no legend), without error bars, with a negative bar.
	d := BarData{Groups: []string{"a", "b", "c"}, Series: []BarSeries{{Values: []float64{0.42, -0.07, 0.3}}}}
	p, err := GroupedBars(d, Labels{Y: "change in Recall@10"}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// The x axis spans the groups with half a group's room on each side; the y axis covers
	// [-0.07, 0.42] widened to multiples of its step 0.1 (range 0.49 / 5 intervals = 0.098 → 0.1).
	if p.X.Min != -0.5 || p.X.Max != 2.5 {
		t.Errorf("x axis [%v, %v], want [-0.5, 2.5]", p.X.Min, p.X.Max)
	}
	if math.Abs(p.Y.Min+0.1) > 1e-12 || math.Abs(p.Y.Max-0.5) > 1e-12 {
		t.Errorf("y axis [%v, %v], want [-0.1, 0.5]", p.Y.Min, p.Y.Max)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	if !reflect.DeepEqual(labels, []string{"a", "b", "c"}) {
		t.Errorf("x tick labels %q", labels)
	}
}

func TestNewBarData(t *testing.T) {
	nan := math.NaN()
	groups := []string{"head", "torso", "tail"}
	// Points out of order; series in order of first appearance.
	pts := []BarPoint{
		{Series: "logQ", Group: "tail", Value: 0.11, Lo: 0.1, Hi: 0.12},
		{Series: "plain", Group: "head", Value: 0.4, Lo: nan, Hi: nan},
		{Series: "logQ", Group: "head", Value: 0.38, Lo: 0.37, Hi: 0.39},
		{Series: "plain", Group: "tail", Value: 0.05, Lo: nan, Hi: nan},
		{Series: "logQ", Group: "torso", Value: 0.26, Lo: 0.25, Hi: 0.27},
		{Series: "plain", Group: "torso", Value: 0.2, Lo: nan, Hi: nan},
	}
	got, err := NewBarData(groups, pts)
	if err != nil {
		t.Fatal(err)
	}
	want := BarData{Groups: groups, Series: []BarSeries{
		{Name: "logQ", Values: []float64{0.38, 0.26, 0.11}, Lo: []float64{0.37, 0.25, 0.1}, Hi: []float64{0.39, 0.27, 0.12}},
		{Name: "plain", Values: []float64{0.4, 0.2, 0.05}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := GroupedBars(got, Labels{Y: "Recall@10"}, Settings{}); err != nil {
		t.Errorf("GroupedBars of NewBarData's result: %v", err)
	}

	for _, tc := range []struct {
		name   string
		groups []string
		pts    []BarPoint
		want   string
	}{
		{"unknown group", groups, []BarPoint{{Series: "a", Group: "all"}}, `point of series "a": unknown group "all"`},
		{"repeated pair", groups, append(pts[:6:6], pts[0]), `series "logQ", group "tail" given twice`},
		{"missing pair", groups, pts[1:], `series "logQ" has no point for group "tail"`},
		{"repeated group name", []string{"head", "tail", "head"}, pts, `group "head" appears twice`},
		{"some intervals", groups, append(pts[:5:5], BarPoint{Series: "plain", Group: "torso", Value: 0.2, Lo: 0.1, Hi: 0.3}),
			`series "plain" has error bars on some groups only`},
	} {
		if _, err := NewBarData(tc.groups, tc.pts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestHatchLines checks the hatching segments against the geometry of lines at angle θ spaced
// s apart: every segment has direction θ, ends inside the rectangle, and consecutive segments
// are s apart.
func TestHatchLines(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 5}, Max: vg.Point{X: 17, Y: 40}}
	const space = 2.5
	for _, deg := range []float64{0, 45, 90, 135} {
		segs := hatchLines(r, deg, space)
		sin, cos := math.Sincos(deg * math.Pi / 180)
		// The lines' offsets k·s along the normal (-sin, cos) that meet the rectangle.
		var lo, hi float64 = math.Inf(1), math.Inf(-1)
		for _, q := range []vg.Point{r.Min, r.Max, {X: r.Min.X, Y: r.Max.Y}, {X: r.Max.X, Y: r.Min.Y}} {
			o := -float64(q.X)*sin + float64(q.Y)*cos
			lo, hi = math.Min(lo, o), math.Max(hi, o)
		}
		wantN := int(math.Floor(hi/space)-math.Ceil(lo/space)) + 1
		// A line through a corner only touches the rectangle and yields no segment.
		if len(segs) < wantN-2 || len(segs) > wantN {
			t.Errorf("%v°: %d segments, want about %d", deg, len(segs), wantN)
		}
		for i, s := range segs {
			for _, q := range s {
				if q.X < r.Min.X-1e-9 || q.X > r.Max.X+1e-9 || q.Y < r.Min.Y-1e-9 || q.Y > r.Max.Y+1e-9 {
					t.Fatalf("%v°: segment %d ends outside the rectangle at %v", deg, i, q)
				}
			}
			dx, dy := float64(s[1].X-s[0].X), float64(s[1].Y-s[0].Y)
			if math.Abs(dx*sin-dy*cos) > 1e-9 {
				t.Errorf("%v°: segment %d has direction (%v, %v)", deg, i, dx, dy)
			}
			if i > 0 {
				o0 := -float64(segs[i-1][0].X)*sin + float64(segs[i-1][0].Y)*cos
				o1 := -float64(s[0].X)*sin + float64(s[0].Y)*cos
				if math.Abs(o1-o0-space) > 1e-9 {
					t.Errorf("%v°: segments %d and %d are %v apart, want %v", deg, i-1, i, o1-o0, space)
				}
			}
		}
	}
}

// TestBarRefErrors: a reference level is named and has one value per group, finite or NaN.
func TestBarRefErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  BarRef
		want string
	}{
		{"no name", BarRef{Values: []float64{1, 2}}, "a reference level has no name"},
		{"length", BarRef{Name: "r", Values: []float64{1}}, "reference r: 1 values for 2 groups"},
		{"infinite", BarRef{Name: "r", Values: []float64{1, math.Inf(1)}}, `reference r: group "b": +Inf`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := BarData{Groups: []string{"a", "b"}, Series: []BarSeries{{Values: []float64{1, 2}}}, Refs: []BarRef{tc.ref}}
			_, err := GroupedBars(d, Labels{Y: "y"}, Settings{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
