package workbench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
			"loss.temperature is zipped with train.learning_rate in ablation[1], which has no tuple with loss.temperature = 0.2 (it has 0.05+0.1+0.1)"},
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
