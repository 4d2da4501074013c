package plots

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/plot/cmpimg"
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

// TestM4LooksTheSame renders a noisy 6000-point series with its band once through M4 and once
// in full, and checks that the images match within the golden-image tolerance.
func TestM4LooksTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ls := LineSeries{Name: "α = 0.05"}
	for step := range 6000 {
		y := 0.1 + 0.8*math.Exp(-float64(step)/800) + 0.03*rng.NormFloat64()
		ls.X = append(ls.X, float64(step))
		ls.Y = append(ls.Y, y)
		ls.Lo = append(ls.Lo, y-0.02-0.01*rng.Float64())
		ls.Hi = append(ls.Hi, y+0.02+0.01*rng.Float64())
	}
	s := Settings{DPI: 100} // 350 pixels wide: about 20 points per column
	l := Labels{X: "training step", Y: "TV distance"}
	var imgs [2][]byte
	for i, aggregate := range []bool{true, false} {
		p, err := lines([]LineSeries{ls}, l, LineOptions{}, s, aggregate)
		if err != nil {
			t.Fatal(err)
		}
		imgs[i] = renderPNG(t, p, s)
	}
	ok, err := cmpimg.EqualApprox("png", imgs[0], imgs[1], goldenDelta)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Errorf("the M4 aggregate looks different from the full series; %s", keepFailure(t, "m4", imgs[0], imgs[1]))
	}
}
