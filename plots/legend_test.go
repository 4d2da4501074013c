package plots

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestLegendLayout checks that the legend lies in its own band: above the data area and its
// top tick label, below the title, within the figure's margins; and that it wraps into rows
// when its entries do not fit one.
func TestLegendLayout(t *testing.T) {
	short := []string{"plain", "logQ", "logQ + importance", "full softmax"}
	var long []string
	for _, s := range []string{"in-batch", "uniform"} {
		for _, w := range []string{"constant", "importance", "relative", "tail"} {
			long = append(long, s+" sampling, "+w+" weights")
		}
	}
	long = append(long, "full softmax")
	for _, tc := range []struct {
		name     string
		entries  []string
		title    string
		s        Settings
		thumbEms vg.Length // thumbnail width in ems: 1.1 for bars, 2.4 for lines
		wantRows int       // as seen in the golden images; 0 for unchecked
	}{
		{"bars, one row", short, "", Settings{}, 1.1, 1},
		{"lines, two rows", short, "", Settings{}, 2.4, 2},
		{"wrapped", long, "Delicious", Settings{Height: 4}, 2.4, 0},
		{"wrapped, wide figure", long, "Delicious", Settings{Width: 7, FontSize: 9}, 2.4, 0},
		{"single entry", short[:1], "Recall", Settings{Width: 1.5, Height: 1.5}, 2.4, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			if err := s.Resolve(); err != nil {
				t.Fatal(err)
			}
			th := newTheme(s)
			p, err := th.newPlot(Labels{Title: tc.title, X: "step", Y: "TV distance"})
			if err != nil {
				t.Fatal(err)
			}
			var entries []legendEntry
			for i, name := range tc.entries {
				line := &plotter.Line{
					XYs:       plotter.XYs{{X: 0, Y: float64(i)}, {X: 1, Y: float64(i) + 1}},
					LineStyle: draw.LineStyle{Color: Color(i), Width: th.lineW, Dashes: Dashes(i)},
				}
				p.Add(line)
				entries = append(entries, legendEntry{name: name, thumbs: []plot.Thumbnailer{line}})
			}
			lg, err := newLegend(th, p, entries, th.em*tc.thumbEms)
			if err != nil {
				t.Fatal(err)
			}
			p.Add(lg)
			if tc.wantRows != 0 && lg.rows() != tc.wantRows {
				t.Errorf("%d rows, want %d", lg.rows(), tc.wantRows)
			}
			// The grid fits the figure, and no grid of fewer rows does.
			avail := vg.Length(s.Width)*vg.Inch - 2*s.margin()
			if lg.width() > avail {
				t.Errorf("legend width %v exceeds the %v available", lg.width(), avail)
			}
			for rows := lg.rows() - 1; rows >= 1; rows-- {
				other := *lg
				other.cols = (len(entries) + rows - 1) / rows
				other.colW = other.columnWidths()
				if other.rows() < lg.rows() && other.width() <= avail {
					t.Errorf("%d rows of %d columns would fit too", other.rows(), other.cols)
				}
			}
			if tc.wantRows == 0 && lg.rows() < 2 {
				t.Errorf("%d entries in one row", len(entries))
			}

			// The canvases Save draws on.
			w, h := vg.Length(s.Width)*vg.Inch, vg.Length(s.Height)*vg.Inch
			m := s.margin()
			fig := draw.Crop(draw.New(vgimg.New(w, h)), m, -m, m, -m)
			data := p.DataCanvas(fig)
			r := lg.rect(data)

			const eps = 1e-9
			tickHalf := p.Y.Tick.Label.Height("0") / 2
			if r.Min.Y < data.Max.Y+tickHalf-eps {
				t.Errorf("legend bottom %v is below data top %v + half a tick label %v", r.Min.Y, data.Max.Y, tickHalf)
			}
			top := fig.Max.Y
			if tc.title != "" {
				top -= p.Title.TextStyle.Rectangle(tc.title).Size().Y + p.Title.Padding
			}
			if r.Max.Y > top+eps {
				t.Errorf("legend top %v is above %v, the bottom of the title (or of the figure)", r.Max.Y, top)
			}
			if r.Min.X < m-eps || r.Max.X > w-m+eps {
				t.Errorf("legend spans x [%v, %v], outside the figure's margins [%v, %v]", r.Min.X, r.Max.X, m, w-m)
			}
			if d := r.Size().Y - lg.rowH*vg.Length(lg.rows()); d < -1e-9 || d > 1e-9 {
				t.Errorf("legend height %v, want %d rows of %v", r.Size().Y, lg.rows(), lg.rowH)
			}
		})
	}
}

// TestLegendTooBig checks that a legend that would crowd out the data is a *LayoutError
// giving the figure height at which it fits.
func TestLegendTooBig(t *testing.T) {
	th, p, entries := namedEntries(t, "in-batch sampling, importance weights %d", 9)
	// One column of 9 rows of 8 pt text is about 1.3 in, half the 2.6 in figure.
	_, err := newLegend(th, p, entries, lineThumbW(th))
	want := "plots: the legend's 1×9 grid needs"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want one starting %q", err, want)
	}
	var le *LayoutError
	if !errors.As(err, &le) || le.Width != 0 || !(le.Height > th.s.Height) {
		t.Fatalf("error %#v, want a *LayoutError asking for a taller figure", err)
	}
	// At the height asked for, it fits.
	s := th.s
	s.Height = le.Height
	th2 := newTheme(s)
	if _, err := newLegend(th2, p, entries, lineThumbW(th)); err != nil {
		t.Errorf("at the %.1f in asked for: %v", le.Height, err)
	}
}

// TestLegendRight checks the legend beside the data: right of the data area, within the
// figure, vertically within it, and the data area narrowed by its width.
func TestLegendRight(t *testing.T) {
	s := Settings{Legend: LegendRight, Height: 3}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	var series []LineSeries
	for i := range 12 {
		series = append(series, LineSeries{Name: fmt.Sprintf("v%d", i), X: []float64{0, 1}, Y: []float64{0, float64(i)}})
	}
	p, err := Lines(series, Labels{X: "x", Y: "y"}, LineOptions{}, s)
	if err != nil {
		t.Fatal(err)
	}
	th, p0, err := newFigure(Labels{X: "x", Y: "y"}, true, s)
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]legendEntry, len(series))
	for i := range entries {
		entries[i].name = series[i].Name
	}
	lg, err := newLegend(th, p0, entries, lineThumbW(th))
	if err != nil {
		t.Fatal(err)
	}
	if lg.cols != 1 || lg.rows() != 12 {
		t.Errorf("%d×%d grid, want one column of 12", lg.cols, lg.rows())
	}
	w, h := vg.Length(s.Width)*vg.Inch, vg.Length(s.Height)*vg.Inch
	m := s.margin()
	fig := draw.Crop(draw.New(vgimg.New(w, h)), m, -m, m, -m)
	p.Add(lg)
	data := p.DataCanvas(fig)
	r := lg.rect(data)
	if r.Min.X < data.Max.X+lg.gap-1e-9 || r.Max.X > w-m+1e-9 {
		t.Errorf("legend spans x [%v, %v]; data area ends at %v, figure at %v", r.Min.X, r.Max.X, data.Max.X, w-m)
	}
	if r.Min.Y < m-1e-9 || r.Max.Y > h-m+1e-9 {
		t.Errorf("legend spans y [%v, %v], outside the figure [%v, %v]", r.Min.Y, r.Max.Y, m, h-m)
	}
}

// TestLegendRowMajor checks that entries fill the grid row by row, left to right, in series
// order, and that columns are as wide as their widest entry.
func TestLegendRowMajor(t *testing.T) {
	th, p, entries := namedEntries(t, "series %d", 5)
	names := []string{
		"short", "longer name, column 1",
		"longer name, column 0", "mid-sized name",
		"tail",
	}
	for i := range entries {
		entries[i].name = names[i]
	}
	lg, err := newLegend(th, p, entries, lineThumbW(th))
	if err != nil {
		t.Fatal(err)
	}
	if lg.cols != 2 || lg.rows() != 3 {
		t.Fatalf("%d columns × %d rows, want 2 × 3", lg.cols, lg.rows())
	}
	for c, widest := range []int{2, 1} {
		if want := lg.thumbW + lg.textGap + lg.style.Width(names[widest]); lg.colW[c] != want {
			t.Errorf("column %d width %v, want %v (entry %q)", c, lg.colW[c], want, names[widest])
		}
	}
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 100}, Max: vg.Point{X: 10 + lg.width(), Y: 100 + lg.height()}}
	for i := range entries {
		col, row := i%2, i/2
		got := lg.entryAt(r, i)
		wantX := r.Min.X + vg.Length(col)*(lg.colW[0]+lg.colGap)
		wantY := r.Max.Y - (vg.Length(row)+0.5)*lg.rowH
		if got.X != wantX || got.Y != wantY {
			t.Errorf("entry %d at %v, want (%v, %v): row %d, column %d", i, got, wantX, wantY, row, col)
		}
	}
}

// namedEntries returns a default theme, an empty plot and n thumbnail-less legend entries
// named by format with their index.
func namedEntries(t *testing.T, format string, n int) (theme, *plot.Plot, []legendEntry) {
	t.Helper()
	th, p, err := newFigure(Labels{X: "x", Y: "y"}, true, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]legendEntry, n)
	for i := range entries {
		entries[i].name = fmt.Sprintf(format, i)
	}
	return th, p, entries
}
