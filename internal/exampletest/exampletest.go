// Package exampletest holds the checks shared by the tests of the example programs
// (examples/custom-loss, examples/custom-sampler, examples/side-input) and of the README's
// commands: build the program, run the README's command line for it, read a CSV output, check
// that a run's training loss went down, that a command fails with a given message, and that the
// README shows the program's code. Each test runs in its example's folder, two levels below the
// repository's root.
package exampletest

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

// Root is the repository's root as seen from an example's folder.
const Root = "../.."

// Build compiles the program in the current folder into a temporary directory and returns the
// binary's path.
func Build(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "example")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Run runs cmd and fails the test with its output if it fails.
func Run(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
}

// Fails runs cmd and checks that it fails with an output containing want.
func Fails(t testing.TB, cmd *exec.Cmd, want string) {
	t.Helper()
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), want) {
		t.Errorf("got %v\n%s\nwant an error containing %q", err, b, want)
	}
}

// ReadCSV returns the rows of the CSV file at path, its header first.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// LossFalls checks that the training loss of the run in folder run went down: the last point of
// its curve.csv at least 10% below the first.
func LossFalls(t testing.TB, run string) {
	t.Helper()
	rows := ReadCSV(t, filepath.Join(run, "curve.csv"))
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
	if first, last := loss(rows[1]), loss(rows[len(rows)-1]); !(last < 0.9*first) {
		t.Errorf("the loss did not go down: first %v, last %v", first, last)
	}
}

// READMECommand returns the arguments of the README's command line that runs program, the words
// after "go run <program>" (e.g. "./examples/custom-loss"), verbatim.
func READMECommand(t testing.TB, program string) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(Root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := "\ngo run " + program + " "
	i := strings.Index(string(readme), prefix)
	if i < 0 {
		t.Fatalf("README.md shows no command line %q…", prefix[1:])
	}
	line, _, _ := strings.Cut(string(readme)[i+len(prefix):], "\n")
	return strings.Fields(line)
}

// RunREADME builds the program in the current folder and runs the README's command line that
// runs program (see READMECommand), verbatim from the repository's root with -out a temporary
// folder, and returns the folder of the run named run and the text of its config.toml.
func RunREADME(t testing.TB, program, run string) (dir, config string) {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command(Build(t), append(READMECommand(t, program), "-out", out)...)
	cmd.Dir = Root
	Run(t, cmd)
	dir = filepath.Join(out, "runs", run)
	b, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, string(b)
}

// READMEShows checks that the README's section (its "## " heading) shows each function of the
// program main.go that starts with one of funcs ("func main() {"), line for line, comments aside,
// so that following the README is following the program the example's tests build and train.
func READMEShows(t testing.TB, section string, funcs ...string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(Root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	program, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "## "+section)
	if i < 0 {
		t.Fatalf("README.md has no section %q", "## "+section)
	}
	text = text[i:]
	for _, fn := range funcs {
		want, got := code(string(program), fn), code(text, fn)
		if want == nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("README's %s…} differs from main.go's:\nREADME:\n%s\nmain.go:\n%s", fn, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// code returns the lines of the function of src that starts with fn, up to its closing brace at
// the start of a line, without comments and trailing blanks; nil if src has no such function.
func code(src, fn string) []string {
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
