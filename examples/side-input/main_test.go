package main

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/exampletest"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/losses/lossestest"
	"github.com/samplingbias/workbench/samplers"
)

// TestTrainsOnSmoke builds the command and runs the README's command line, verbatim (from the
// repository's root, with -out a temporary folder): the loss reads the side input the sampler
// declares, with no change to the workbench's packages, the runs record the sampler and the
// variant, and the training loss goes down (the last point of curve.csv at least 10% below the
// first).
func TestTrainsOnSmoke(t *testing.T) {
	run, conf := exampletest.RunREADME(t, "./examples/side-input", "variant=count_adjusted,seed=1")
	for _, want := range []string{`variant = "count_adjusted"`, `kind = "uniform_counted"`, "beta = 1.0"} {
		if !strings.Contains(conf, want) {
			t.Errorf("the run's config does not record %s:\n%s", want, conf)
		}
	}
	exampletest.LossFalls(t, run)
}

// TestMissingSideInput: the variant with a sampler that does not declare log_count is one error
// naming the variant, the side input and the sampler, and what the step has.
func TestMissingSideInput(t *testing.T) {
	cmd := exec.Command(exampletest.Build(t), "-config", filepath.Join(exampletest.Root, "configs", "smoke.toml"), "-out", t.TempDir(),
		"-set", "loss.variant=count_adjusted", "-set", "seeds=[1]")
	exampletest.Fails(t, cmd, "variant count_adjusted reads the side input log_count, which neither sampler in_batch nor the data declares "+
		"(the step has log_q, log_p (sampler in_batch); rewards, log_prior (data))")
}

// TestCountAdjusted checks the variant as the package losses checks its own: its value against
// the formula written here in float64, and its gradient against central finite differences,
// float64 and float32, on a random step of the sampler over a skewed corpus.
func TestCountAdjusted(t *testing.T) {
	if err := registered(); err != nil {
		t.Fatal(err)
	}
	const b, m, items = 4, 5, 30
	smp, g, err := samplers.Build(samplers.Settings{Kind: "uniform_counted", Negatives: m})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	d := &samplers.Data{Items: items, Batch: b, Counts: make([]int64, items)}
	for j := range d.Counts {
		d.Counts[j] = int64(100 / (j + 1))
		d.N += int(d.Counts[j])
	}
	st := candidates.NewStep(g, b, items)
	if err := samplers.DeclareSides(smp, st); err != nil {
		t.Fatal(err)
	}
	pos, rows := []int32{0, 3, 3, 17}, make([]int32, g.ItemRows(b, items))
	smp.Draw(rng, d, pos, rows)
	if err := smp.Declare(d, pos, rows, nil, st); err != nil {
		t.Fatal(err)
	}
	c := g.Cols(b, items)
	S := make([]float64, b*c)
	for k := range S {
		S[k] = rng.NormFloat64()
	}
	const tau, beta = 0.5, 0.7
	// ref is (1/B)·Σ_i [log Σ_j e^{z_ij} − z_ip], z_ij = s_ij/τ + β·log(1 + c_j), column 0 row i's
	// own positive.
	ref := func(S []float64) float64 {
		total := 0.0
		for i := range b {
			z := make([]float64, c)
			for j := range c {
				item := rows[b+j-1]
				if j == 0 {
					item = pos[i]
				}
				z[j] = S[i*c+j]/tau + beta*math.Log1p(float64(d.Counts[item]))
			}
			sum := 0.0
			for _, v := range z {
				sum += math.Exp(v)
			}
			total += math.Log(sum) - z[0]
		}
		return total / b
	}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		l, err := losses.New(losses.Settings{Variant: "count_adjusted", Temperature: tau, Options: map[string]any{"beta": beta}}, g, dt)
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-12
		if dt == tensor.Float32 {
			tol = 1e-5
		}
		lossestest.Value(t, l, st, S, b, c, ref, tol)
		lossestest.Gradient(t, l, st, S, b, c, ref, 1e-6, 10*tol+1e-7)
	}
}

// TestREADMEShowsThisProgram: the README's "A side input of your own" shows this program's
// declaration and variant, line for line (comments aside).
func TestREADMEShowsThisProgram(t *testing.T) {
	exampletest.READMEShows(t, "A side input of your own", "func (uniformCounted) Sides()", "func countAdjusted(")
}
