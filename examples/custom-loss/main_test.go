package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/internal/exampletest"
)

// smokeConfig is configs/smoke.toml, whose ablation axis over loss.variant a
// -set loss.variant replaces.
func smokeConfig(t *testing.T) string {
	t.Helper()
	return filepath.Join(exampletest.Root, "configs", "smoke.toml")
}

// readmeCommand returns the arguments of the README's command that runs this
// program (the words after "go run ./examples/custom-loss"), verbatim.
func readmeCommand(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(exampletest.Root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "\ngo run ./examples/custom-loss "
	i := strings.Index(string(readme), prefix)
	if i < 0 {
		t.Fatalf("README.md shows no command line %q…", prefix[1:])
	}
	line, _, _ := strings.Cut(string(readme)[i+len(prefix):], "\n")
	return strings.Fields(line)
}

// TestTrainsOnSmoke builds the command and runs the README's command line,
// verbatim (from the repository's root, with -out a temporary folder): the
// runs finish, record the variant and its option, and the training loss goes
// down (the last point of curve.csv at least 10% below the first).
func TestTrainsOnSmoke(t *testing.T) {
	bin, out := exampletest.Build(t), t.TempDir()
	cmd := exec.Command(bin, append(readmeCommand(t), "-out", out)...)
	cmd.Dir = exampletest.Root
	exampletest.Run(t, cmd)
	run := filepath.Join(out, "runs", "variant=logq_tempered,seed=1")
	conf, err := os.ReadFile(filepath.Join(run, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), `variant = "logq_tempered"`) || !strings.Contains(string(conf), "alpha = 0.5") {
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
