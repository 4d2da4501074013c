package main

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/exampletest"
	"github.com/samplingbias/workbench/internal/tape"
	"github.com/samplingbias/workbench/losses"
)

// smokeConfig is configs/smoke.toml, whose ablation axis over loss.variant a
// -set loss.variant replaces.
func smokeConfig(t *testing.T) string {
	t.Helper()
	return filepath.Join(exampletest.Root, "configs", "smoke.toml")
}

// TestTrainsOnSmoke builds the command and runs the README's command line,
// verbatim (from the repository's root, with -out a temporary folder): the
// runs finish, record the variant and its option, and the training loss goes
// down (the last point of curve.csv at least 10% below the first).
func TestTrainsOnSmoke(t *testing.T) {
	run, conf := exampletest.RunREADME(t, "./examples/custom-loss", "variant=logq_tempered,seed=1")
	if !strings.Contains(conf, `variant = "logq_tempered"`) || !strings.Contains(conf, "alpha = 0.5") {
		t.Errorf("the run's config does not record the variant and its option:\n%s", conf)
	}
	exampletest.LossFalls(t, run)
}

// TestUnknownOption: an option the variant does not declare is an error
// naming the key and listing the variant's options.
func TestUnknownOption(t *testing.T) {
	cmd := exec.Command(exampletest.Build(t), "-config", smokeConfig(t), "-out", t.TempDir(), "-set", "loss.variant=logq_tempered",
		"-set", "loss.options.beta=1")
	exampletest.Fails(t, cmd, "loss.options.beta: unknown option of variant logq_tempered (it has: alpha)")
}

// TestZeroAlpha: alpha = 0, which the options' Resolve would replace by its
// default 1, is an error rather than silently 1.
func TestZeroAlpha(t *testing.T) {
	cmd := exec.Command(exampletest.Build(t), "-config", smokeConfig(t), "-out", t.TempDir(), "-set", "loss.variant=logq_tempered",
		"-set", "loss.options.alpha=0")
	exampletest.Fails(t, cmd, "loss.options.alpha: 0 is not allowed (omit the key for the default 1)")
}

// TestREADMEShowsThisProgram: the README's "Adding a loss variant" shows this program's
// expression and main, line for line (comments aside), so that following the README is
// following the program this package's tests build and train.
func TestREADMEShowsThisProgram(t *testing.T) {
	exampletest.READMEShows(t, "Adding a loss variant", "func logqTempered(", "func main() {")
}

// BenchmarkLogqTempered: forward + backward of logq_tempered at α = 1 (an expression) and of the
// built-in logq with logq_probability = "inclusion", the same loss z = s/τ − log p̂ as a fused
// kernel, side by side at B = 1024 in-batch, float32, so that what writing the variant as its
// formula costs is measured (README, speed).
func BenchmarkLogqTempered(b *testing.B) {
	register(b)
	for _, s := range []losses.Settings{
		{Variant: "logq_tempered", Options: map[string]any{"alpha": 1.0}},
		{Variant: losses.VariantLogQ, LogQProbability: losses.LogQProbabilityInclusion, Impl: losses.ImplFused},
	} {
		b.Run(string(s.Variant), func(b *testing.B) {
			const n = 1024
			geo := candidates.Geometry{Sampler: "in_batch", Layout: candidates.Diagonal}
			l, err := losses.New(s, geo, tensor.Float32)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			st := candidates.NewStep(geo, n, 20000)
			for _, name := range []string{candidates.LogP, candidates.LogQ} {
				if err := st.Declare(candidates.Side{Name: name, By: "sampler in_batch"}); err != nil {
					b.Fatal(err)
				}
			}
			logP, logQ := st.Col(candidates.LogP), st.Col(candidates.LogQ)
			for j := range n {
				st.RowItem[j], st.ColItem[j] = int64(j), int64(j)
				logP[j] = math.Log(0.001 + 0.5*rng.Float64())
				logQ[j] = math.Log(1e-5 + 1e-3*rng.Float64())
			}
			copy(st.Row(candidates.LogP), logP)
			copy(st.Row(candidates.LogQ), logQ)
			scores := make([]float32, n*n)
			for k := range scores {
				scores[k] = float32(0.3 * rng.NormFloat64())
			}
			g := G.NewGraph()
			sn := G.NewMatrix(g, tensor.Float32, G.WithShape(n, n), G.WithName("scores"),
				G.WithValue(tensor.New(tensor.WithShape(n, n), tensor.WithBacking(scores))))
			loss, err := l.Node(losses.Inputs{Scores: sn}, st)
			if err != nil {
				b.Fatal(err)
			}
			grads, err := G.Grad(loss, sn)
			if err != nil {
				b.Fatal(err)
			}
			vm, err := tape.Machine(g, loss, grads[0])
			if err != nil {
				b.Fatal(err)
			}
			defer vm.Close()
			for i := 0; i <= b.N; i++ { // one warm-up run, whose buffers the others reuse
				if i == 1 {
					b.ResetTimer()
				}
				if err := vm.RunAll(); err != nil {
					b.Fatal(err)
				}
				vm.Reset()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}

// register adds the example's variant once per test binary, as main does.
func register(tb testing.TB) {
	registerOnce.Do(func() {
		registerErr = losses.Register("logq_tempered", variant)
	})
	if registerErr != nil {
		tb.Fatal(registerErr)
	}
}

var (
	registerOnce sync.Once
	registerErr  error
)
