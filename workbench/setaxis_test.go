package workbench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSetAxis checks -set on the key of an ablation axis: it is never ignored, whatever the
// order of the grid's keys. The expected ids are the grid the doc comment of setAxis describes.
func TestSetAxis(t *testing.T) {
	const base = `seeds = [1]
[data]
source = "synthetic"
[[ablation]]
key = "loss.variant"
values = ["plain", "logq"]
[[ablation]]
keys = ["train.learning_rate", "loss.temperature"]
values = [[0.01, 0.05], [0.02, 0.1], [0.03, 0.1]]
`
	tests := []struct {
		name string
		sets []string
		ids  []string // the runs, in order
		err  string   // a part of the error, if any
	}{
		{"none", nil, []string{
			"variant=plain,learning_rate=0.01,temperature=0.05,seed=1",
			"variant=plain,learning_rate=0.02,temperature=0.1,seed=1",
			"variant=plain,learning_rate=0.03,temperature=0.1,seed=1",
			"variant=logq,learning_rate=0.01,temperature=0.05,seed=1",
			"variant=logq,learning_rate=0.02,temperature=0.1,seed=1",
			"variant=logq,learning_rate=0.03,temperature=0.1,seed=1",
		}, ""},
		{"axis replaced by one value", []string{"loss.variant=logq", "train.learning_rate=0.01"}, []string{
			"variant=logq,learning_rate=0.01,temperature=0.05,seed=1",
		}, ""},
		{"zipped key keeps its tuples", []string{"loss.variant=plain", "loss.temperature=0.1"}, []string{
			"variant=plain,learning_rate=0.02,temperature=0.1,seed=1",
			"variant=plain,learning_rate=0.03,temperature=0.1,seed=1",
		}, ""},
		{"list sweeps an axis key", []string{"loss.variant=[\"logq\", \"full\"]", "loss.temperature=[0.05]"}, []string{
			"variant=logq,learning_rate=0.01,temperature=0.05,seed=1",
			"variant=full,learning_rate=0.01,temperature=0.05,seed=1",
		}, ""},
		{"list adds an axis", []string{"loss.variant=plain", "train.learning_rate=0.01", "model.embedding_dim=[8,16]", "seeds=[1,2]"}, []string{
			"variant=plain,learning_rate=0.01,temperature=0.05,embedding_dim=8,seed=1",
			"variant=plain,learning_rate=0.01,temperature=0.05,embedding_dim=8,seed=2",
			"variant=plain,learning_rate=0.01,temperature=0.05,embedding_dim=16,seed=1",
			"variant=plain,learning_rate=0.01,temperature=0.05,embedding_dim=16,seed=2",
		}, ""},
		{"zipped value not in the axis", []string{"loss.temperature=0.2"}, nil,
			"loss.temperature is zipped with train.learning_rate in ablation[1], which has no tuple with loss.temperature = 0.2 (it has 0.05, 0.1)"},
		// A list keeps the tuples of its values; a value no tuple has is not dropped in silence.
		{"zipped list with a value not in the axis", []string{"loss.temperature=[0.1, 0.3]"}, nil,
			"-set loss.temperature=[0.1, 0.3]: loss.temperature is zipped with train.learning_rate in ablation[1], which has no tuple with loss.temperature = 0.3 (it has 0.05, 0.1)"},
		{"unknown variant as an axis value", []string{"loss.variant=nope"}, nil, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, cfg, err := parseConfig("grid.toml", []byte(base), tt.sets)
			var runs []plannedRun
			if err == nil {
				runs, err = plan(raw, cfg)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range runs {
				ids = append(ids, r.cell.ID)
			}
			if strings.Join(ids, "\n") != strings.Join(tt.ids, "\n") {
				t.Errorf("runs\n%s\nwant\n%s", strings.Join(ids, "\n"), strings.Join(tt.ids, "\n"))
			}
		})
	}
}

// TestOnlyMatchingNothing: -only matching no run is an error naming the closest ids, and
// nothing is written: the output folder is not created, hence not bound to the config.
func TestOnlyMatchingNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"run", nil},
		{"list", []string{"-list"}},
		{"shard", []string{"-shard", "0/2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"-config", smokeConfig, "-out", out, "-only", "variant=lgoq"}, tt.args...)
			_, err := runCommand(t, args...)
			want := `-only "variant=lgoq" matches none of the grid's 4 runs; the closest ids are:
  variant=logq,seed=1
  variant=logq,seed=2
  variant=plain,seed=1`
			if err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the output folder: %v, want it absent", err)
			}
		})
	}
}

// TestRunIDs: ids leave out empty values, and name a key by its whole path where its last
// component is ambiguous across the config's settings, so that grids over different keys never
// share a run folder.
func TestRunIDs(t *testing.T) {
	for _, tt := range []struct {
		name string
		axes []Axis
		ids  []string
	}{
		{"unambiguous", []Axis{{Key: "loss.variant", Values: []any{"plain"}}}, []string{"variant=plain,seed=1"}},
		{"empty value left out", []Axis{{Keys: []string{"loss.variant", "loss.logq_probability"}, Values: []any{[]any{"full", ""}, []any{"logq", "inclusion"}}}},
			[]string{"variant=full,seed=1", "variant=logq,logq_probability=inclusion,seed=1"}},
		{"estimator.alpha", []Axis{{Key: "estimator.alpha", Values: []any{0.5}}}, []string{"alpha=0.5,seed=1"}},
		{"a loss option is named by its path", []Axis{{Key: "loss.options.alpha", Values: []any{0.5}}}, []string{"loss.options.alpha=0.5,seed=1"}},
		{"a table of options names its entries", []Axis{{Key: "loss.options", Values: []any{map[string]any{"alpha": 0.5, "beta": int64(2)}}}},
			[]string{"loss.options=alpha:0.5-beta:2,seed=1"}},
		{"a table of known keys gives its values", []Axis{{Key: "sampler.of", Values: []any{[]any{map[string]any{"kind": "uniform", "negatives": int64(8)}}}}},
			[]string{"of=uniform-8,seed=1"}},
		{"ambiguous across the config", []Axis{{Key: "estimator.kind", Values: []any{"exact"}}}, []string{"estimator.kind=exact,seed=1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cells, err := expand(tt.axes, []int64{1})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range cells {
				ids = append(ids, c.ID)
			}
			if strings.Join(ids, " ") != strings.Join(tt.ids, " ") {
				t.Errorf("ids %v, want %v", ids, tt.ids)
			}
		})
	}
}

// TestAddedSeedKept: a seed added with -set seeds=... stays in the folder: -report (and a later
// run) without that -set keeps its runs in metrics.csv and its seed in the folder's config.toml.
func TestAddedSeedKept(t *testing.T) {
	out := t.TempDir()
	base := []string{"-config", smokeConfig, "-out", out, "-set", "loss.variant=plain"}
	for _, args := range [][]string{base, append(slices.Clone(base), "-set", "seeds=[1,2,3]"), append(slices.Clone(base), "-report")} {
		if _, err := runCommand(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"variant=plain,seed=1", "variant=plain,seed=2", "variant=plain,seed=3"} {
		if !strings.Contains(string(csv), "\n\""+id+"\",") {
			t.Errorf("metrics.csv has no rows of %s", id)
		}
	}
	conf, err := os.ReadFile(filepath.Join(out, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), "seeds = [1, 2, 3]") {
		t.Errorf("the folder's config.toml lost the added seed:\n%s", conf)
	}
}

// TestSetSeedsAsWritten: seeds a -set writes are the grid's seeds, not widened by the folder's
// finished runs of other seeds: a cell added beside -set seeds=[1] trains at seed 1 only.
func TestSetSeedsAsWritten(t *testing.T) {
	out := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", out, "-set", "loss.variant=plain"); err != nil {
		t.Fatal(err)
	}
	stdout, err := runCommand(t, "-config", smokeConfig, "-out", out, "-set", "seeds=[1]")
	if err != nil {
		t.Fatal(err)
	}
	if want := "2 runs: 1 already finished, 1 to run"; !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "variant=logq,seed=2")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a grid of seed 1 trained variant=logq,seed=2 (stat: %v)", err)
	}
}

// TestOptionsPerVariant: [loss.options.<variant>] gives a registered variant its options in a
// grid with built-in variants, from the file and from -set; each run resolves to its own
// variant's options only (defaults none here: scaled_plain's factor has no default).
func TestOptionsPerVariant(t *testing.T) {
	body := "seeds = [1]\n[data]\nsource = \"synthetic\"\n[loss.options.scaled_plain]\nfactor = 2.5\n" +
		"[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"scaled_plain\"]\n"
	for _, tt := range []struct {
		name string
		sets []string
		want any // scaled_plain's factor
		err  string
	}{
		{"file", nil, 2.5, ""},
		{"set", []string{"loss.options.scaled_plain.factor=4"}, 4.0, ""},
		{"type error", []string{"loss.options.scaled_plain.factor=\"big\""}, nil, `-set loss.options.scaled_plain.factor="big": loss.options.scaled_plain.factor: variant scaled_plain: incompatible types`},
		{"built-in variant", []string{"loss.options.logq.alpha=1"}, nil, "options.logq: variant logq is built in and has no options"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, cfg, err := parseConfig("grid.toml", []byte(body), tt.sets)
			var runs []plannedRun
			if err == nil {
				runs, err = plan(raw, cfg)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 2 {
				t.Fatalf("%d runs, want 2", len(runs))
			}
			if o := runs[0].cfg.Loss.Options; o != nil {
				t.Errorf("the plain run has options %v", o)
			}
			if got := runs[1].cfg.Loss.Options; len(got) != 1 || got["factor"] != tt.want {
				t.Errorf("the scaled_plain run has options %v, want factor = %v", got, tt.want)
			}
		})
	}
}

// TestOptionsOfNoRun: a [loss.options.<variant>] table of a variant that no run of the grid
// trains is one error naming the table where it was written (the file's line, the -set that
// wrote it or a key in it) and the variants the grid trains. A table of the file's own grid
// that a -set left without runs is left out of the config, whose folder config.toml then loads.
func TestOptionsOfNoRun(t *testing.T) {
	const table = "[loss.options.scaled_plain]\nfactor = 2.5\n"
	const grid = "[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"scaled_plain\"]\n"
	for _, tt := range []struct {
		name, body string
		sets       []string
		err        string // "": the config loads
		kept       bool   // a config that loads keeps the table
	}{
		{"the file's table, no run", "seeds = [1]\n" + table, nil,
			"grid.toml:2: loss.options.scaled_plain: for variant scaled_plain, which no run of the grid trains (its runs train plain)", false},
		{"the file's table, another grid", "seeds = [1]\n" + table + "[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"logq\"]\n", nil,
			"grid.toml:2: loss.options.scaled_plain: for variant scaled_plain, which no run of the grid trains (its runs train plain, logq)", false},
		{"a -set table, no run", "seeds = [1]\n", []string{"loss.options.scaled_plain.factor=2"},
			"-set loss.options.scaled_plain.factor=2: loss.options.scaled_plain: for variant scaled_plain, which no run of the grid trains (its runs train plain)", false},
		{"a -set key in the file's table, narrowed", "seeds = [1]\n" + table + grid, []string{"loss.variant=plain", "loss.options.scaled_plain.factor=3"},
			"-set loss.options.scaled_plain.factor=3: loss.options.scaled_plain.factor: for variant scaled_plain, which no run of the grid trains (its runs train plain)", false},
		{"the file's table, its run", "seeds = [1]\n" + table + grid, nil, "", true},
		{"the file's table, narrowed by -set", "seeds = [1]\n" + table + grid, []string{"loss.variant=plain"}, "", false},
		{"the file's table, its variant replaced by -set", "seeds = [1]\n[loss]\nvariant = \"scaled_plain\"\n" + table, []string{"loss.variant=logq"}, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, _, err := parseConfig("grid.toml", []byte(tt.body), tt.sets)
			if tt.err != "" {
				wantError(t, err, tt.err)
				if !strings.HasPrefix(err.Error(), tt.err) {
					t.Errorf("error %q does not begin with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			body, err := raw.encodeFor(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := parseConfig(filepath.Join(dir, "config.toml"), body, nil); err != nil {
				t.Errorf("the folder's config.toml does not load: %v\n%s", err, body)
			}
			if _, kept := raw.Loss.Options["scaled_plain"]; kept != tt.kept {
				t.Errorf("the table kept: %t, want %t", kept, tt.kept)
			}
		})
	}
}

// TestOptionErrorLine: a wrongly typed option is reported at its own line of the file, in a
// [loss.options] table and in a variant's own table; given with -set, at the flag.
func TestOptionErrorLine(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		sets       []string
		want       string
	}{
		{"options table", "seeds = [1]\n[loss]\nvariant = \"scaled_plain\"\n\n[loss.options]\nfactor = \"big\"\n", nil,
			"grid.toml:6: loss.options.factor: variant scaled_plain: incompatible types"},
		{"variant's table", "[loss]\nvariant = \"scaled_plain\"\n[loss.options.scaled_plain]\n# the factor\nfactor = \"big\"\n", nil,
			"grid.toml:5: loss.options.factor: variant scaled_plain: incompatible types"},
		{"-set", "[loss]\nvariant = \"scaled_plain\"\n[loss.options]\nfactor = 2.0\n", []string{`loss.options.factor="big"`},
			`-set loss.options.factor="big": loss.options.factor: variant scaled_plain: incompatible types`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parseConfig("grid.toml", []byte(tt.body), tt.sets)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want it to begin %q", err, tt.want)
			}
		})
	}
}

// TestForeignFolderRefused: an output folder that holds files the workbench did not write, and
// no training.settings, is refused before anything is written into it.
func TestForeignFolderRefused(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(t, "-config", smokeConfig, "-out", out, "-set", "seeds=[1]", "-set", "loss.variant=plain")
	want := out + " is not a results folder of the workbench (it holds notes.txt and no training.settings)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want it to begin %q", err, want)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the folder now holds %d files, want only notes.txt", len(entries))
	}
}

// TestAxisTableValues: an axis value may be a table or a list of tables (a mixture's
// [[sampler.of]] components), set on each run's config as a [[sampler.of]] section would be and
// named in the run id by its values; a key such a table does not declare is an error naming it.
func TestAxisTableValues(t *testing.T) {
	const axis = `
[[ablation]]
keys = ["sampler.kind", "sampler.of", "loss.variant"]
values = [
  ["mixture", [{ kind = "in_batch_unique", negatives = 8 }, { kind = "uniform", negatives = 16 }], "plain"],
  ["full", [], "full"],
]
`
	raw, cfg, err := loadConfig(writeConfig(t, "seeds = [1]\n"+axis), nil)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := plan(raw, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "sampler.kind=mixture,of=in_batch_unique-8+uniform-16,variant=plain,seed=1" ||
		runs[1].ID != "sampler.kind=full,variant=full,seed=1" {
		t.Fatalf("runs %v", []string{runs[0].ID, runs[1].ID})
	}
	of := runs[0].cfg.Sampler.Of
	if len(of) != 2 || of[0].Kind != "in_batch_unique" || of[0].Negatives != 8 || of[1].Kind != "uniform" || of[1].Negatives != 16 {
		t.Errorf("mixture's components %+v", of)
	}
	if len(runs[1].cfg.Sampler.Of) != 0 {
		t.Errorf("full sampler with components %+v", runs[1].cfg.Sampler.Of)
	}
	raw, cfg, err = loadConfig(writeConfig(t, "seeds = [1]\n"+strings.Replace(axis, "negatives = 16", "negativs = 16", 1)), nil)
	if err == nil {
		_, err = plan(raw, cfg)
	}
	if err == nil || !strings.Contains(err.Error(), "unknown key sampler.of[1].negativs") {
		t.Errorf("a misspelt key in an axis's table: %v", err)
	}
}
