package workbench

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrittenConfigsRoundTrip: the config.toml the workbench writes into a results folder and
// into each run's folder, for every shipped config, loads as a -config and gives the same runs
// (ids and hashes) as the config it was written from, and the freq_sim experiment the same
// resolved config.
func TestWrittenConfigsRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../configs/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, cfg, err := loadConfig(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "results", "x")
			reload := func(name string, body []byte) (*Config, *Config) {
				t.Helper()
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
				r, c, err := loadConfig(p, nil)
				if err != nil {
					t.Fatalf("%s does not load: %v\n%s", name, err, body)
				}
				return r, c
			}
			written := raw // as writeFolderConfig is called
			if cfg.Experiment == ExperimentFreqSim {
				written = cfg
			}
			body, err := written.encodeFor(dir)
			if err != nil {
				t.Fatal(err)
			}
			raw2, cfg2 := reload("config.toml", body)
			if cfg.Experiment == ExperimentFreqSim {
				a, _ := cfg.canonical(affectsTraining, affectsGrid, affectsEvaluation, affectsFigures)
				b, _ := cfg2.canonical(affectsTraining, affectsGrid, affectsEvaluation, affectsFigures)
				if digestOf(a) != digestOf(b) {
					t.Errorf("the written config resolves to another config:\n%v\n%v", a, b)
				}
				return
			}
			runs, err := plan(raw, cfg)
			if err != nil {
				t.Fatal(err)
			}
			again, err := plan(raw2, cfg2)
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != len(runs) {
				t.Fatalf("the folder's config.toml has %d runs, the config %d", len(again), len(runs))
			}
			for i, r := range runs {
				if again[i].cell.ID != r.cell.ID || again[i].hash != r.hash {
					t.Errorf("run %d: %s (hash %s) from the folder's config.toml, want %s (hash %s)", i, again[i].cell.ID, again[i].hash, r.cell.ID, r.hash)
				}
				rdir := filepath.Join(dir, "runs", r.cell.ID)
				body, err := r.cfg.encodeFor(rdir)
				if err != nil {
					t.Fatal(err)
				}
				rr, rc := reload(filepath.Join("runs", r.cell.ID, "config.toml"), body)
				one, err := plan(rr, rc)
				if err != nil {
					t.Fatal(err)
				}
				if len(one) != 1 || one[0].hash != r.hash {
					t.Errorf("run %s: its config.toml gives %d runs, the first of hash %s, want 1 of hash %s", r.cell.ID, len(one), one[0].hash, r.hash)
				}
			}
		})
	}
}
