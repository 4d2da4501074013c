package workbench

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestFreqSimEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", "../configs/freq_sim.toml", "-out", dir,
		"-set", "freq_sim.steps_per_phase=300", "-set", "freq_sim.alphas=[0.05, 0.1]"); err != nil {
		t.Fatal(err)
	}
	b := readFile(t, filepath.Join(dir, "tv.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "alpha,hashes,workers,interleaving,seed,step,tv" {
		t.Errorf("tv.csv header %q", lines[0])
	}
	// 2 alphas × 3 hashes × 3 workers × 3 seeds × 600 steps.
	if got, want := len(lines)-1, 2*3*3*3*600; got != want {
		t.Errorf("tv.csv has %d rows, want %d", got, want)
	}
	if !strings.HasPrefix(lines[1], "0.05,1,1,simulated,1,1,") {
		t.Errorf("first row %q", lines[1])
	}
	summary := readFile(t, filepath.Join(dir, "summary.md"))
	// One worker loses no update.
	if !strings.Contains(string(summary), "| 0.05 | 4 | 1 |") || !strings.Contains(string(summary), "| 0.0% |\n| 0.05 | 4 | 2 |") {
		t.Errorf("summary.md has no rows per worker count, or one worker lost updates:\n%s", summary)
	}
	for _, f := range []string{"config.toml", "summary.md", "tv_by_alpha.png", "tv_by_hashes.png", "tv_by_workers.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestFreqSimReproducible: the shipped config's simulated interleaving gives a byte-identical
// tv.csv across reruns and -jobs values, workers included; threads are labelled machine-dependent.
func TestFreqSimReproducible(t *testing.T) {
	var first []byte
	for i, jobs := range []string{"1", "3", "3"} {
		dir := t.TempDir()
		if _, err := runCommand(t, "-config", "../configs/freq_sim.toml", "-out", dir, "-jobs", jobs,
			"-set", "freq_sim.steps_per_phase=200", "-set", "freq_sim.alphas=[0.1]", "-set", "freq_sim.hashes=[4]"); err != nil {
			t.Fatal(err)
		}
		b := readFile(t, filepath.Join(dir, "tv.csv"))
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Errorf("run %d (-jobs %s): tv.csv differs from the first run's", i, jobs)
		}
		if s := readFile(t, filepath.Join(dir, "summary.md")); !strings.Contains(string(s), "reproducible on any machine") {
			t.Errorf("summary.md does not say the interleaving is reproducible:\n%s", s)
		}
	}
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", "../configs/freq_sim.toml", "-out", dir, "-set", `freq_sim.interleaving="threads"`,
		"-set", "freq_sim.steps_per_phase=100", "-set", "freq_sim.alphas=[0.1]", "-set", "freq_sim.hashes=[4]"); err != nil {
		t.Fatal(err)
	}
	if s := readFile(t, filepath.Join(dir, "summary.md")); !strings.Contains(string(s), "machine-dependent") {
		t.Errorf("summary.md does not label threads machine-dependent:\n%s", s)
	}
	if b := readFile(t, filepath.Join(dir, "tv.csv")); !strings.Contains(string(b), ",threads,") {
		t.Error("tv.csv does not label the rows threads")
	}
}

// TestFreqSimRefusals: before anything is written, the simulation refuses a -set of a section it
// does not read (it was dropped), repeated grid values (they failed at the figures, after the
// runs), and cells that would not fit in the machine's memory (the runtime died), each naming
// the key.
func TestFreqSimRefusals(t *testing.T) {
	for _, c := range []struct {
		set  string
		want string
	}{
		{"estimator.alpha=0.5", `-set estimator.alpha=0.5: section estimator not used by experiment "freq_sim" (it reads freq_sim, plots)`},
		{"report.mlflow=true", `-set report.mlflow=true: section report not used by experiment "freq_sim"`},
		{"freq_sim.alphas=[0.1, 0.1]", "freq_sim.alphas: duplicate value 0.1"},
		{"freq_sim.buckets=100000000000", "freq_sim.buckets: the simulation needs about 2.9 TiB of memory"},
		{"freq_sim.items=10000000000", "freq_sim.items: the simulation needs about"},
	} {
		t.Run(c.set, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			_, err := runCommand(t, "-config", "../configs/freq_sim.toml", "-out", dir, "-jobs", "2", "-set", c.set)
			wantError(t, err, c.want)
			if _, err := os.Stat(dir); err == nil {
				t.Error("the refused simulation wrote its folder")
			}
		})
	}
}

// TestFreqSimConcurrentWriters: a simulation refuses a folder that a live simulation of other
// figure settings is writing (they wrote their files over each other's), before it runs; one of
// the same settings does not stop it, and its registration is gone when it ends.
func TestFreqSimConcurrentWriters(t *testing.T) {
	small := []string{"freq_sim.steps_per_phase=50", "freq_sim.alphas=[0.1]", "freq_sim.hashes=[4]"}
	for _, tt := range []struct {
		name, set, want string
	}{
		{"same settings", "", ""},
		{"other figures", "plots.dpi=72", "(plots.dpi = 300 here, 72 there): both would write the folder's config.toml, summary.md, tables"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			sets := append([]string{"out=" + strconv.Quote(out)}, small...)
			if tt.set != "" {
				sets = append(sets, tt.set)
			}
			g, err := Load("../configs/freq_sim.toml", sets...)
			if err != nil {
				t.Fatal(err)
			}
			if err := claimOutput(out, g.cfg, io.Discard); err != nil {
				t.Fatal(err)
			}
			release, err := registerWriter(g.cfg, nil, testOptions(t, 1), true)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"-config", "../configs/freq_sim.toml", "-out", out}
			for _, s := range small {
				args = append(args, "-set", s)
			}
			_, err = runCommand(t, args...)
			checkRefusal(t, err, tt.want, filepath.Join(out, "tv.csv"))
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(out, writersDir, "*")); len(left) != 0 {
				t.Errorf("registrations left: %v", left)
			}
		})
	}
}
