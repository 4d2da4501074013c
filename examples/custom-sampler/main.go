// Command custom-sampler is the experiments command with one more sampler, distinct_uniform: m
// distinct items drawn uniformly without replacement and shared by every row, each row's own
// positive in column 0. Each item is among the m with probability p = m/M and, drawn at most
// once, has m/M expected copies among a row's negatives: the per-draw q = 1/M, as for the
// uniform sampler with replacement, whose p = 1 − (1 − 1/M)^m is smaller.
//
//	go run ./examples/custom-sampler -config configs/smoke.toml -set sampler.kind=distinct_uniform -set sampler.negatives=32 -out results/custom-sampler
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/workbench"
)

// distinctUniform draws m distinct items per step.
type distinctUniform struct{ m int }

func newDistinctUniform(_ any, negatives int) (samplers.Sampler, error) {
	if negatives < 1 {
		return nil, fmt.Errorf("negatives: must be > 0, got %d", negatives)
	}
	return distinctUniform{m: negatives}, nil
}

func (s distinctUniform) Shape() samplers.Shape {
	return samplers.Shape{Geometry: candidates.Geometry{Layout: candidates.First, Extra: s.m}}
}

// Draw copies the positives, then draws m distinct items with Floyd's algorithm (none when m > M:
// Declare then fails).
func (s distinctUniform) Draw(rng *rand.Rand, d *samplers.Data, pos, rows []int32) {
	copy(rows, pos)
	if s.m > d.Items {
		return
	}
	drawn := rows[len(pos):len(pos)]
	for j := d.Items - s.m; j < d.Items; j++ {
		t := int32(rng.IntN(j + 1))
		for _, x := range drawn {
			if x == t {
				t = int32(j)
				break
			}
		}
		drawn = append(drawn, t)
	}
}

// Declare gives every column, and every row's positive, q = 1/M and p = m/M.
func (s distinctUniform) Declare(d *samplers.Data, pos, rows []int32, _ samplers.Law, c *candidates.Step) error {
	if s.m > d.Items {
		return fmt.Errorf("sampler.negatives: %d distinct items from a corpus of %d", s.m, d.Items)
	}
	logQ, logP := -math.Log(float64(d.Items)), math.Log(float64(s.m)/float64(d.Items))
	c.ColItem[0] = candidates.NoItem // column 0: each row's own positive
	for j := 1; j < len(c.ColItem); j++ {
		c.ColItem[j] = int64(rows[len(pos)+j-1])
	}
	for _, v := range [][]float64{c.Col(candidates.LogQ), c.Row(candidates.LogQ)} {
		for k := range v {
			v[k] = logQ
		}
	}
	for _, v := range [][]float64{c.Col(candidates.LogP), c.Row(candidates.LogP)} {
		for k := range v {
			v[k] = logP
		}
	}
	return nil
}

func main() {
	err := samplers.Register("distinct_uniform", samplers.Custom{New: newDistinctUniform})
	if err == nil {
		err = workbench.Main(os.Args[1:], os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "custom-sampler:", err)
		os.Exit(1)
	}
}
