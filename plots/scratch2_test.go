package plots

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

func TestScratchM4(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ls := LineSeries{Name: "α = 0.05"}
	for step := range 20000 {
		y := 0.1 + 0.8*math.Exp(-float64(step%10000)/800) + 0.03*rng.NormFloat64()
		ls.X = append(ls.X, float64(step))
		ls.Y = append(ls.Y, y)
		ls.Lo = append(ls.Lo, y-0.02-0.01*rng.Float64())
		ls.Hi = append(ls.Hi, y+0.02+0.01*rng.Float64())
	}
	s := Settings{}
	for i, agg := range []bool{true, false} {
		p, _ := lines([]LineSeries{ls}, Labels{X: "training step", Y: "TV distance"}, LineOptions{}, s, agg)
		os.WriteFile([]string{"/tmp/plotscratch/agg.png", "/tmp/plotscratch/full.png"}[i], renderPNG(t, p, s), 0o644)
	}
}
