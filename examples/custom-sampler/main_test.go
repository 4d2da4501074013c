package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/internal/exampletest"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// smokeConfig writes configs/smoke.toml without its ablation over loss.variant to a temporary
// file (the run is then the config's default variant, plain).
func smokeConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(exampletest.Root, "configs", "smoke.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "[[ablation]]")
	if i < 0 {
		t.Fatal("configs/smoke.toml has no [[ablation]]")
	}
	path := filepath.Join(t.TempDir(), "smoke.toml")
	if err := os.WriteFile(path, []byte(text[:i]), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTrainsOnSmoke builds the command and runs the registered sampler on the smoke config with
// its default variant (plain): the run finishes, records the sampler, and its training
// loss goes down (the last point of curve.csv at least 10% below the first).
func TestTrainsOnSmoke(t *testing.T) {
	out := t.TempDir()
	exampletest.Run(t, exec.Command(exampletest.Build(t), "-config", smokeConfig(t), "-out", out, "-set", "seeds=[1]",
		"-set", "sampler.kind=distinct_uniform", "-set", "sampler.negatives=32"))
	run := filepath.Join(out, "runs", "seed=1")
	conf, err := os.ReadFile(filepath.Join(run, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), `kind = "distinct_uniform"`) || !strings.Contains(string(conf), "negatives = 32") {
		t.Errorf("the run's config does not record the sampler:\n%s", conf)
	}
	exampletest.LossFalls(t, run)
}

// TestOptionsRejected: the sampler declares no options, so a [sampler.options] key is an error
// naming it.
func TestOptionsRejected(t *testing.T) {
	cmd := exec.Command(exampletest.Build(t), "-config", smokeConfig(t), "-out", t.TempDir(), "-set", "sampler.kind=distinct_uniform",
		"-set", "sampler.negatives=8", "-set", "sampler.options.beta=1")
	exampletest.Fails(t, cmd, "sampler.options.beta: sampler distinct_uniform has no options")
}

// TestAudit: distinct_uniform's declaration, q = 1/M and p = m/M, is what it draws over 4000 steps
// of 8 distinct items from samplerstest's 20-item corpus (samplerstest.Audit), and the audit at
// that N fails the declaration 10% too large.
func TestAudit(t *testing.T) {
	smp, err := newDistinctUniform(nil, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := samplerstest.Audit(smp, samplerstest.SkewedData(8), 4000, 1); err != nil {
		t.Error(err)
	}
	if err := samplerstest.Audit(samplerstest.Overstated(smp, 1.1), samplerstest.SkewedData(8), 4000, 1); err == nil {
		t.Error("a declaration 10% too large passed the audit")
	}
}

// TestREADMEShowsThisProgram: the README's "Adding a sampler" shows this program's
// expression and main, line for line (comments aside), so that following the README is
// following the program this package's tests build and train.
func TestREADMEShowsThisProgram(t *testing.T) {
	exampletest.READMEShows(t, "Adding a sampler", "func (s distinctUniform) Draw(", "func (s distinctUniform) Declare(", "func main() {")
}
