package plots

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func TestM4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xys := make(plotter.XYs, 1000)
	for i := range xys {
		xys[i] = plotter.XY{X: float64(i) + rng.Float64()*0.5, Y: rng.NormFloat64()}
	}
	// Columns 7.3 device units wide, x mapped to 0.5 units per x unit: about 14.6 points each.
	trX := func(x float64) vg.Length { return vg.Length(0.5 * x) }
	const col = 7.3
	keep := m4(xys, trX, col)
	if !slices.IsSorted(keep) || len(slices.Compact(slices.Clone(keep))) != len(keep) {
		t.Fatalf("indices not strictly increasing: %v", keep)
	}
	// Independently: group the points by column, and check the kept ones of each column.
	byCol := make(map[int][]int)
	for i, p := range xys {
		c := int(math.Floor(float64(trX(p.X)) / col))
		byCol[c] = append(byCol[c], i)
	}
	kept := make(map[int]bool)
	for _, i := range keep {
		kept[i] = true
	}
	for c, idx := range byCol {
		first, last := idx[0], idx[len(idx)-1]
		lo, hi := first, first
		n := 0
		for _, i := range idx {
			if xys[i].Y < xys[lo].Y {
				lo = i
			}
			if xys[i].Y > xys[hi].Y {
				hi = i
			}
			if kept[i] {
				n++
			}
		}
		for _, i := range []int{first, last, lo, hi} {
			if !kept[i] {
				t.Errorf("column %d: point %d (first, last, lowest or highest) dropped", c, i)
			}
		}
		if n > 4 {
			t.Errorf("column %d keeps %d points", c, n)
		}
	}
	if len(keep) > 4*len(byCol) || len(keep) < 2*len(byCol) {
		t.Errorf("%d points kept for %d columns", len(keep), len(byCol))
	}
	// With at most one point per column every point is kept.
	if got := m4(xys, trX, 0.1); len(got) != len(xys) {
		t.Errorf("fine columns keep %d of %d points", len(got), len(xys))
	}
}

// TestM4LooksTheSame renders a noisy series of about 9 points per pixel column, with its band,
// at the default resolution, once through M4 and once in full. M4 is exact for one-pixel
// aliased lines; with thicker anti-aliased strokes a few edge pixels differ, so the test bounds
// the share of pixels that differ beyond the golden-image tolerance: at most 0.5%.
func TestM4LooksTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ls := LineSeries{Name: "α = 0.05"}
	for step := range 3000 {
		y := 0.1 + 0.8*math.Exp(-float64(step%1500)/200) + 0.03*rng.NormFloat64()
		ls.X = append(ls.X, float64(step))
		ls.Y = append(ls.Y, y)
		ls.Lo = append(ls.Lo, y-0.02-0.01*rng.Float64())
		ls.Hi = append(ls.Hi, y+0.02+0.01*rng.Float64())
	}
	s := Settings{Width: 1.5, Height: 1.2} // default 300 dpi: about 340 pixel columns of data
	l := Labels{X: "step", Y: "TV"}
	var imgs [2][]byte
	for i, aggregate := range []bool{true, false} {
		p, err := lines([]LineSeries{ls}, l, LineOptions{}, s, aggregate)
		if err != nil {
			t.Fatal(err)
		}
		imgs[i] = renderPNG(t, p, s)
	}
	f := farPixels(t, imgs[0], imgs[1], goldenDelta)
	t.Logf("%.3f%% of pixels differ beyond delta", 100*f)
	if f > 0.005 {
		t.Errorf("%.2f%% of pixels differ; %s", 100*f, keepFailure(t, "m4", imgs[0], imgs[1]))
	}
}

// farPixels returns the share of pixels of two PNG images of the same size whose colours differ
// by more than delta in cmpimg's sense: a YIQ distance (Kotsarenko and Ramos, as in cmpimg)
// above delta² of the largest.
func farPixels(t *testing.T, raw1, raw2 []byte, delta float64) float64 {
	t.Helper()
	a, err1 := png.Decode(bytes.NewReader(raw1))
	b, err2 := png.Decode(bytes.NewReader(raw2))
	if err1 != nil || err2 != nil || a.Bounds() != b.Bounds() {
		t.Fatalf("cannot compare: %v, %v, bounds %v and %v", err1, err2, a.Bounds(), b.Bounds())
	}
	yiq := func(c color.Color) (float64, float64, float64) {
		r16, g16, b16, _ := c.RGBA()
		r, g, b := float64(r16>>8), float64(g16>>8), float64(b16>>8)
		return r*0.29889531 + g*0.58662247 + b*0.11448223,
			r*0.59597799 - g*0.27417610 - b*0.32180189,
			r*0.21147017 - g*0.52261711 + b*0.31114694
	}
	const maxDist = 35215.0 // between black and white
	far, n := 0, 0
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			y1, i1, q1 := yiq(a.At(x, y))
			y2, i2, q2 := yiq(b.At(x, y))
			if 0.5053*(y1-y2)*(y1-y2)+0.299*(i1-i2)*(i1-i2)+0.1957*(q1-q2)*(q1-q2) > maxDist*delta*delta {
				far++
			}
			n++
		}
	}
	return float64(far) / float64(n)
}
