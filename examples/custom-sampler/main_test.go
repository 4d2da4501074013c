package main

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// build compiles this command into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "custom-sampler")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// smokeConfig writes configs/smoke.toml without its ablation over loss.variant to a temporary
// file (the run is then the config's default variant, plain).
func smokeConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "configs", "smoke.toml"))
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
	bin, cfg, out := build(t), smokeConfig(t), t.TempDir()
	cmd := exec.Command(bin, "-config", cfg, "-out", out, "-set", "seeds=[1]",
		"-set", "sampler.kind=distinct_uniform", "-set", "sampler.negatives=32")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	run := filepath.Join(out, "runs", "seed=1")
	conf, err := os.ReadFile(filepath.Join(run, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), `kind = "distinct_uniform"`) || !strings.Contains(string(conf), "negatives = 32") {
		t.Errorf("the run's config does not record the sampler:\n%s", conf)
	}
	f, err := os.Open(filepath.Join(run, "curve.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 || rows[0][2] != "loss" {
		t.Fatalf("curve.csv has %d rows, header %v", len(rows), rows[0])
	}
	loss := func(r []string) float64 {
		v, err := strconv.ParseFloat(r[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first, last := loss(rows[1]), loss(rows[len(rows)-1])
	if !(last < 0.9*first) {
		t.Errorf("the loss did not go down: first %v, last %v", first, last)
	}
}

// TestOptionsRejected: the sampler declares no options, so a [sampler.options] key is an error
// naming it.
func TestOptionsRejected(t *testing.T) {
	bin, cfg := build(t), smokeConfig(t)
	cmd := exec.Command(bin, "-config", cfg, "-out", t.TempDir(), "-set", "sampler.kind=distinct_uniform",
		"-set", "sampler.negatives=8", "-set", "sampler.options.beta=1")
	b, err := cmd.CombinedOutput()
	want := "sampler.options.beta: sampler distinct_uniform has no options"
	if err == nil || !strings.Contains(string(b), want) {
		t.Errorf("got %v\n%s\nwant an error containing %q", err, b, want)
	}
}

// TestREADMEShowsThisProgram: the README's "Adding a sampler" shows this program's
// expression and main, line for line (comments aside), so that following the README is
// following the program this package's tests build and train.
func TestREADMEShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	program, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "## Adding a sampler"); i >= 0 {
		section = section[i:]
	} else {
		t.Fatal(`README.md has no section "## Adding a sampler"`)
	}
	code := func(src, fn string) []string {
		i := strings.Index(src, fn)
		if i < 0 {
			return nil
		}
		body, _, _ := strings.Cut(src[i:], "\n}\n")
		var lines []string
		for _, l := range strings.Split(body, "\n") {
			l, _, _ = strings.Cut(l, "//")
			lines = append(lines, strings.TrimRight(l, " \t"))
		}
		return lines
	}
	for _, fn := range []string{"func (s distinctUniform) Draw(", "func (s distinctUniform) Declare(", "func main() {"} {
		want, got := code(string(program), fn), code(section, fn)
		if want == nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("README's %s…} differs from main.go's:\nREADME:\n%s\nmain.go:\n%s", fn, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
