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
	bin := filepath.Join(t.TempDir(), "custom-loss")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// smokeConfig is configs/smoke.toml, whose ablation axis over loss.variant a
// -set loss.variant replaces.
func smokeConfig(t *testing.T) string {
	t.Helper()
	return filepath.Join("..", "..", "configs", "smoke.toml")
}

// readmeCommand returns the arguments of the README's command that runs this
// program (the words after "go run ./examples/custom-loss"), verbatim.
func readmeCommand(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
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
	bin, out := build(t), t.TempDir()
	cmd := exec.Command(bin, append(readmeCommand(t), "-out", out)...)
	cmd.Dir = filepath.Join("..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	run := filepath.Join(out, "runs", "variant=logq_tempered,seed=1")
	conf, err := os.ReadFile(filepath.Join(run, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), `variant = "logq_tempered"`) || !strings.Contains(string(conf), "alpha = 0.5") {
		t.Errorf("the run's config does not record the variant and its option:\n%s", conf)
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

// TestUnknownOption: an option the variant does not declare is an error
// naming the key and listing the variant's options.
func TestUnknownOption(t *testing.T) {
	bin, cfg := build(t), smokeConfig(t)
	cmd := exec.Command(bin, "-config", cfg, "-out", t.TempDir(), "-set", "loss.variant=logq_tempered",
		"-set", "loss.options.beta=1")
	b, err := cmd.CombinedOutput()
	want := "loss.options.beta: unknown option of variant logq_tempered (it has: alpha)"
	if err == nil || !strings.Contains(string(b), want) {
		t.Errorf("got %v\n%s\nwant an error containing %q", err, b, want)
	}
}

// TestZeroAlpha: alpha = 0, which the options' Resolve would replace by its
// default 1, is an error rather than silently 1.
func TestZeroAlpha(t *testing.T) {
	cmd := exec.Command(build(t), "-config", smokeConfig(t), "-out", t.TempDir(), "-set", "loss.variant=logq_tempered",
		"-set", "loss.options.alpha=0")
	b, err := cmd.CombinedOutput()
	want := "loss.options.alpha: 0 is not allowed (omit the key for the default 1)"
	if err == nil || !strings.Contains(string(b), want) {
		t.Errorf("got %v\n%s\nwant an error containing %q", err, b, want)
	}
}

// TestREADMEShowsThisProgram: the README's "Adding a loss variant" shows this program's
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
	if i := strings.Index(section, "## Adding a loss variant"); i >= 0 {
		section = section[i:]
	} else {
		t.Fatal(`README.md has no section "## Adding a loss variant"`)
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
	for _, fn := range []string{"func logqTempered(", "func main() {"} {
		want, got := code(string(program), fn), code(section, fn)
		if want == nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("README's %s…} differs from main.go's:\nREADME:\n%s\nmain.go:\n%s", fn, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
