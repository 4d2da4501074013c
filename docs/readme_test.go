package docs

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/internal/exampletest"
	"github.com/samplingbias/workbench/workbench"
)

// notRun are the README's shell commands that TestREADMECommands does not run, each with why.
var notRun = map[string]string{
	"go run ./experiments -config configs/movielens.toml": "1.5 min of training on 2 cores; the smoke run covers the same stages",
	"go run ./experiments -config configs/wiki.toml":      "the main job, 5–9 minutes on 2 cores",
	"go test ./...": "the whole test suite, this test included (4 min)",
	"launch/slurm-submit.sh configs/delicious.toml":                          "needs a Slurm cluster; .ci/slurm-e2e.sh submits the smoke config with it",
	"kubectl apply -f launch/k8s-indexed-job.yaml":                           "needs a Kubernetes cluster",
	"kubectl wait --for=condition=complete --timeout=24h job/workbench-grid": "needs a Kubernetes cluster",
	"kubectl apply -f launch/k8s-report-job.yaml":                            "needs a Kubernetes cluster",
	"go run -tags openblas ./experiments -config configs/wiki.toml":          "the main job, 5–9 minutes on 2 cores, and needs libopenblas-dev",
	"go test -tags openblas ./...":                                           "the whole test suite under the openblas tag; .ci/run runs it",
	"go get github.com/samplingbias/workbench@<commit>":                      "<commit> stands for a commit of the repository; the local-clone commands below are run",
}

// ownModule are the README's commands that run in a module of the reader's own, next to the
// clone ("From your own module"); the others run in the repository.
var ownModule = []string{
	"go mod init example.com/myloss",
	"go mod edit -replace github.com/samplingbias/workbench=../workbench",
	"go mod tidy",
	"go run . -config ../workbench/configs/smoke.toml -set loss.variant=logq_tempered -set loss.options.alpha=0.5",
}

// readme returns README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fenced returns the lines of every ``` block of README text whose info string is lang, one
// slice per block.
func fenced(text, lang string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// comment is a shell comment at the end of a command line.
var comment = regexp.MustCompile(`\s+#.*$`)

// commands returns the shell commands of the README's sh blocks, comments removed, in order.
func commands(text string) []string {
	var out []string
	for _, block := range fenced(text, "sh") {
		for _, line := range block {
			if c := strings.TrimSpace(comment.ReplaceAllString(line, "")); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

// mirror makes a directory that holds the repository's top-level entries as symbolic links,
// except results/ and .git, so that the README's commands run verbatim without writing into
// the repository.
func mirror(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "results" || e.Name() == ".git" || e.Name() == "bin" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// shell runs command with bash in dir, with this test's go first on the PATH.
func shell(t *testing.T, dir, command string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(runtime.GOROOT(), "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestREADMECommands runs, verbatim and in order, every shell command the README shows that
// finishes in seconds (notRun lists the others, with why): the repository's commands in a
// mirror of it, the "From your own module" commands in a new module beside the mirror, which
// is named workbench as the README's ../workbench assumes. The smoke run's second run must say
// that every run is finished, as the quick start says. With -short it is left out: it takes a
// minute, and the commands it starts are built without the test's build tags, so the short
// repeats under other tags would run the same thing again.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README's commands run in the full test")
	}
	text := readme(t)
	cmds := commands(text)
	for c := range notRun {
		if !slices.Contains(cmds, c) {
			t.Errorf("notRun lists %q, which the README does not show", c)
		}
	}
	for _, c := range ownModule {
		if !slices.Contains(cmds, c) {
			t.Errorf("ownModule lists %q, which the README does not show", c)
		}
	}
	base := t.TempDir()
	repo, own := filepath.Join(base, "workbench"), filepath.Join(base, "myloss")
	mirror(t, repo)
	if err := os.Mkdir(own, 0o755); err != nil {
		t.Fatal(err)
	}
	main, err := os.ReadFile(filepath.Join("..", "examples", "custom-loss", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, "main.go"), main, 0o644); err != nil {
		t.Fatal(err)
	}
	smokeRuns := 0
	for _, c := range cmds {
		if reason, ok := notRun[c]; ok {
			t.Logf("not run: %s (%s)", c, reason)
			continue
		}
		dir := repo
		if slices.Contains(ownModule, c) {
			dir = own
		}
		out, err := shell(t, dir, c)
		if err != nil {
			t.Errorf("%s: %v\n%s", c, err, out)
			continue
		}
		if c == "go run ./experiments -config configs/smoke.toml" {
			smokeRuns++
			if out, err := shell(t, dir, c); err != nil || !strings.Contains(out, "4 runs: 4 already finished, 0 to run") {
				t.Errorf("%s, run again: %v; want it to say 4 runs: 4 already finished, 0 to run\n%s", c, err, out)
			}
		}
	}
	if smokeRuns != 1 {
		t.Errorf("the README shows the smoke run %d times in sh blocks, want once", smokeRuns)
	}
}

// TestREADMEOwnInteractions runs the README's "Your own interactions" config on a small CSV of
// the shape it describes (user_id,item_id,ts with popular and rare items over several days):
// every run of the grid it declares (3 variants × 3 seeds) has its rows in metrics.csv. Two
// epochs, smaller towers and fewer bootstrap resamples keep it to seconds; the config's own keys
// are used as written.
func TestREADMEOwnInteractions(t *testing.T) {
	config := sectionConfig(t, "## Your own interactions")
	if n := strings.Count(config, "\n"); n > 16 {
		t.Errorf("the example has %d lines; it is meant to be short", n)
	}
	dir := t.TempDir()
	writeClicks(t, dir)
	cfg := filepath.Join(dir, "clicks.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	var log strings.Builder
	if err := workbench.Main([]string{"-config", cfg, "-out", out,
		"-set", "train.epochs=2", "-set", "model.hidden=[32,16]", "-set", "eval.bootstrap=100"}, &log, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows := exampletest.ReadCSV(t, filepath.Join(out, "metrics.csv"))
	runs := map[string]bool{}
	for _, r := range rows[1:] {
		runs[r[0]] = true
	}
	// Besides the trained runs, every summary has the sanity baselines' rows.
	if len(runs) != 9+2 || !runs["most_popular"] || !runs["random"] {
		t.Errorf("metrics.csv has %d runs, want 3 variants × 3 seeds and the most_popular and random baselines: %v", len(runs), runs)
	}
}

// TestREADMEModelSelection runs the "Your own interactions" config with the keys "Model
// selection" adds to it, on the CSV of TestREADMEOwnInteractions (three epochs, one seed): every
// run records its validations and its selected strength, which metrics.csv and summary.md show.
func TestREADMEModelSelection(t *testing.T) {
	var base, keys map[string]any
	if _, err := toml.Decode(sectionConfig(t, "## Your own interactions"), &base); err != nil {
		t.Fatal(err)
	}
	if _, err := toml.Decode(sectionConfig(t, "## Model selection"), &keys); err != nil {
		t.Fatal(err)
	}
	merge(base, keys)
	dir := t.TempDir()
	writeClicks(t, dir)
	var config strings.Builder
	if err := toml.NewEncoder(&config).Encode(base); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "clicks.toml")
	if err := os.WriteFile(cfg, []byte(config.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	var log strings.Builder
	if err := workbench.Main([]string{"-config", cfg, "-out", out, "-set", "seeds=[1]",
		"-set", "train.epochs=3", "-set", "model.hidden=[16]", "-set", "eval.bootstrap=20"}, &log, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if n := strings.Count(log.String(), "model selected on the validation set: epoch "); n != 3 {
		t.Errorf("%d runs selected an epoch, want 3:\n%s", n, log.String())
	}
	rows := exampletest.ReadCSV(t, filepath.Join(out, "metrics.csv"))
	if !slices.Contains(rows[0], "selected_la_tau") {
		t.Errorf("metrics.csv has no selected_la_tau column: %v", rows[0])
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "Model selection on the validation set by ndcg@10 (all), per row and seed:") {
		t.Errorf("summary.md does not say what was selected:\n%s", summary)
	}
}

// sectionConfig is the first toml block of the README's section that begins with heading.
func sectionConfig(t *testing.T, heading string) string {
	t.Helper()
	text := readme(t)
	i := strings.Index(text, heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", heading)
	}
	blocks := fenced(text[i:], "toml")
	if len(blocks) == 0 {
		t.Fatalf("%q has no toml block", heading)
	}
	return strings.Join(blocks[0], "\n") + "\n"
}

// merge sets the keys of add in m, the tables' keys one by one.
func merge(m, add map[string]any) {
	for k, v := range add {
		sub, ok := v.(map[string]any)
		if into, isTable := m[k].(map[string]any); ok && isTable {
			merge(into, sub)
			continue
		}
		m[k] = v
	}
}

// writeClicks writes the clicks.csv of "Your own interactions" into dir: header
// user_id,item_id,ts, with popular and rare items over several days.
func writeClicks(t *testing.T, dir string) {
	t.Helper()
	var csvText strings.Builder
	csvText.WriteString("user_id,item_id,ts\n")
	// 120 users × 20 events; user u's k-th event is item (u·k·7 + k²) mod m with m growing with
	// k, so that low item ids are frequent and high ones rare; one event per hour.
	for u := range 120 {
		for k := range 20 {
			m := 5 + 10*k
			fmt.Fprintf(&csvText, "u%d,i%d,%d\n", u, (u*k*7+k*k)%m, 1_700_000_000+3600*(u*20+k))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "clicks.csv"), []byte(csvText.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestREADMEDependencies: the README's dependency table names every module go.mod requires
// directly, and nothing else besides the indirect modules it says are pinned.
func TestREADMEDependencies(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var direct []string
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && strings.Contains(f[0], ".") && !strings.Contains(line, "// indirect") {
			direct = append(direct, f[0])
		}
	}
	if len(direct) < 5 {
		t.Fatalf("found %d direct requirements in go.mod", len(direct))
	}
	text := readme(t)
	i := strings.Index(text, "## Dependencies and why")
	if i < 0 {
		t.Fatal(`README.md has no section "## Dependencies and why"`)
	}
	table := text[i:]
	if j := strings.Index(table[1:], "\n## "); j >= 0 {
		table = table[:j+1]
	}
	for _, m := range direct {
		if !strings.Contains(table, "`"+m+"`") && !strings.Contains(table, "`"+m+" ") {
			t.Errorf("go.mod requires %s, which the README's dependency table does not explain", m)
		}
	}
	for _, m := range regexp.MustCompile("`([a-z0-9.-]+\\.[a-z]+/[^` ]+)").FindAllStringSubmatch(table, -1) {
		if !strings.Contains(string(gomod), m[1]+" ") {
			t.Errorf("the README's dependency table names %s, which go.mod does not require", m[1])
		}
	}
}
