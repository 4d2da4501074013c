package plots

import (
	"math"
	"path/filepath"
	"testing"
	"time"
)

func TestScratchBig(t *testing.T) {
	var ss []LineSeries
	for i, a := range []float64{0.01, 0.05, 0.1} {
		ls := LineSeries{Name: []string{"α = 0.01", "α = 0.05", "α = 0.1"}[i]}
		for s := 0; s < 20000; s++ {
			y := 0.1 + 0.8*math.Exp(-a*float64(s%10000)/40) + 0.02*math.Sin(float64(s))
			ls.X = append(ls.X, float64(s))
			ls.Y = append(ls.Y, y)
			ls.Lo = append(ls.Lo, y-0.02)
			ls.Hi = append(ls.Hi, y+0.02)
		}
		ss = append(ss, ls)
	}
	t0 := time.Now()
	p, err := Lines(ss, Labels{X: "training step", Y: "TV distance"}, LineOptions{}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("build", time.Since(t0))
	for _, f := range []string{"png", "svg", "pdf"} {
		t0 = time.Now()
		paths, err := Save(p, filepath.Join("/tmp/plotscratch", "big"), Settings{Formats: []string{f}})
		t.Log(paths, err, time.Since(t0))
	}
}
