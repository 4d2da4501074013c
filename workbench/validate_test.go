package workbench

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// wantError checks that err is one line holding every substring of want, in order.
func wantError(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one with %q", want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	at := 0
	for _, w := range want {
		i := strings.Index(msg[at:], w)
		if i < 0 {
			t.Fatalf("error %q lacks %q (after position %d)", msg, w, at)
		}
		at += i + len(w)
	}
}

// loadAndPlan loads a config with -set values and plans its runs, as the command does before
// running anything.
func loadAndPlan(t *testing.T, body string, sets ...string) ([]plannedRun, error) {
	t.Helper()
	raw, cfg, err := loadConfig(writeConfig(t, body), sets)
	if err != nil {
		return nil, err
	}
	return plan(raw, cfg)
}

// TestWrittenZeroIsAnError: a key written with the zero value of its field, which resolving
// would silently replace by the default, is an error naming the key and the default (no
// silent defaults); the same keys absent take the default.
func TestWrittenZeroIsAnError(t *testing.T) {
	tests := []struct {
		name string
		body string
		sets []string
		want []string
	}{
		{"batch_size", "[train]\nbatch_size = 0\n", nil, []string{"train.batch_size: 0 is not allowed (omit the key for the default 256)"}},
		{"epochs", "[train]\nepochs = 0\n", nil, []string{"train.epochs: 0 is not allowed", "default 10"}},
		{"learning_rate", "[train]\nlearning_rate = 0.0\n", nil, []string{"train.learning_rate: 0 is not allowed", "default 0.001"}},
		{"temperature", "[loss]\ntemperature = 0.0\n", nil, []string{"loss.temperature: 0 is not allowed"}},
		{"k = []", "[eval]\nk = []\n", nil, []string{"eval.k: [] is not allowed (omit the key for the default [10, 50, 100])"}},
		{"hidden = []", "[model]\nhidden = []\n", nil, []string{"model.hidden: [] is not allowed (omit the key for the default [512, 128])"}},
		{"embedding_dim", "[model]\nembedding_dim = 0\n", nil, []string{"model.embedding_dim: 0 is not allowed", "default 64"}},
		{"seeds = []", "seeds = []\n", nil, []string{"seeds: [] is not allowed (omit the key for the default [1])"}},
		{"synthetic items", "[data]\nsource = \"synthetic\"\n[data.synthetic]\nitems = 0\n", nil, []string{"data.synthetic.items: 0 is not allowed", "default 2000"}},
		{"empty string enum", "[loss]\nvariant = \"\"\n", nil, []string{`loss.variant: "" is not allowed (omit the key for the default "plain")`}},
		{"out", "out = \"\"\n", nil, []string{`out: "" is not allowed (omit the key for the default "results`}},
		{"bootstrap", "[eval]\nbootstrap = 0\n", nil, []string{"eval.bootstrap: 0 is not allowed", "default 1000"}},
		{"-set counts as written", "", []string{"train.batch_size=0"}, []string{"train.batch_size: 0 is not allowed"}},
		{"-set empty list", "", []string{"eval.k=[]"}, []string{"eval.k: [] is not allowed"}},
		{"ablation value counts as written", "[[ablation]]\nkey = \"train.epochs\"\nvalues = [1, 0]\n", nil, []string{"run epochs=0,seed=1: train.epochs: 0 is not allowed"}},
		{"written zero a cell would replace", "[sampler]\nnegatives = 0\n[[ablation]]\nkey = \"sampler.kind\"\nvalues = [\"in_batch\", \"uniform\"]\n", nil,
			[]string{"run sampler.kind=uniform,seed=1: ", "exp.toml:2: sampler.negatives: 0 is not allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadAndPlan(t, tt.body, tt.sets...)
			wantError(t, err, tt.want...)
		})
	}
}

// TestWrittenZeroThatMeansSomething: zeros that resolving keeps are settings, not defaults.
func TestWrittenZeroThatMeansSomething(t *testing.T) {
	for _, body := range []string{
		"[sampler]\nkind = \"in_batch\"\nnegatives = 0\n",
		"[train]\nclip = 0.0\n",
		"[train]\nsteps = 50\nepochs = 0\n",
		"data_seed = 0\n",
		"[eval]\nworkers = 0\n",
		"[model]\nshare_embeddings = false\n",
	} {
		if _, err := loadAndPlan(t, body); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestAblationOverNonRunSettings: an axis over a key that is not a run setting would give
// duplicate identical runs, and is refused.
func TestAblationOverNonRunSettings(t *testing.T) {
	tests := []struct{ body, want string }{
		{"[[ablation]]\nkey = \"seeds\"\nvalues = [[1], [2]]\n", "exp.toml:2: ablation[0].key: seeds is not a run setting: list the seeds in seeds = [...]"},
		{"[[ablation]]\nkey = \"out\"\nvalues = [\"a\", \"b\"]\n", "exp.toml:2: ablation[0].key: out is not a run setting"},
		{"[[ablation]]\nkey = \"data_seed\"\nvalues = [1, 2]\n", "exp.toml:2: ablation[0].key: data_seed is not a run setting"},
		{"[[ablation]]\nkey = \"plots.dpi\"\nvalues = [100, 200]\n", "exp.toml:2: ablation[0].key: plots.dpi is not a run setting"},
		{"[[ablation]]\nkey = \"experiment\"\nvalues = [\"retrieval\"]\n", "exp.toml:2: ablation[0].key: experiment is not a run setting"},
		{"[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\"]\n[[ablation]]\nkeys = [\"loss.temperature\", \"seeds\"]\nvalues = [[0.1, [1]]]\n", "exp.toml:5: ablation[1].keys: seeds is not a run setting"},
		{"[[ablation]]\nkeys = [\"loss.temperature\", \"seeds\"]\nvalues = [[0.1, [1]]]\n[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\"]\n", "exp.toml:2: ablation[0].keys: seeds is not a run setting"},
	}
	for _, tt := range tests {
		_, err := loadAndPlan(t, tt.body)
		wantError(t, err, tt.want)
	}
}

// TestAblationErrorLines: an error about an axis names the line of the file that writes the key
// at fault in that [[ablation]] table, whichever of the tables it is (the TOML decoder records
// the lines of the last one's keys only), or of its header; an axis a -set made, the flag.
func TestAblationErrorLines(t *testing.T) {
	const three = "[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"logq\"]\n" +
		"[[ablation]]\nkeys = [\"loss.temperature\", %s]\nvalues = [%s]\n" +
		"[[ablation]]\nkey = \"model.embedding_dim\"\nvalues = [%s]\n"
	tests := []struct {
		name, body string
		sets       []string
		want       string
	}{
		{"key repeated", fmt.Sprintf(three, `"loss.variant"`, `[0.1, "plain"]`, "8"), nil,
			"exp.toml:5: ablation[1].keys: loss.variant is already the key of an earlier axis"},
		{"tuple too short", fmt.Sprintf(three, `"train.epochs"`, `[0.1, 2], [0.2]`, "8"), nil,
			"exp.toml:6: ablation[1].values: want lists of 2 values (one per key of loss.temperature, train.epochs); value 2 is [0.2]"},
		{"value of the wrong type", fmt.Sprintf(three, `"train.epochs"`, `[0.1, "two"]`, "8"), nil,
			"exp.toml:6: ablation[1].values: train.epochs: incompatible types"},
		{"last table", fmt.Sprintf(three, `"train.epochs"`, `[0.1, 2]`, `"eight"`), nil,
			"exp.toml:9: ablation[2].values: model.embedding_dim: incompatible types"},
		{"no key", "[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\"]\n\n[[ablation]]\nvalues = [1]\n[[ablation]]\nkey = \"train.epochs\"\nvalues = [1]\n", nil,
			"exp.toml:5: ablation[1]: key is missing"},
		{"an axis of a -set", "[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\"]\n", []string{"plots.width=[5, 6]"},
			"-set plots.width=[5, 6]: ablation[1].key: plots.width is not a run setting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadAndPlan(t, tt.body, tt.sets...)
			wantError(t, err, tt.want)
		})
	}
}

// TestShippedConfigsPlan: every config in configs/ still loads and plans under the stricter
// checks (written zeros, axis keys); wiki.toml writes temperature 0.0 for mse_gramian, a zero
// that resolving keeps.
func TestShippedConfigsPlan(t *testing.T) {
	files, err := filepath.Glob("../configs/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	for _, f := range files {
		raw, cfg, err := loadConfig(f, nil)
		if err == nil && cfg.Experiment == ExperimentRetrieval {
			_, err = plan(raw, cfg)
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestDataErrorsNameTheirKey: an error of the data's loader about a key of [data] names the full
// key after where it was written, as the config's own errors do: a test window of more days than
// the data have (its train set empty) and more validation users than have a validation pair.
func TestDataErrorsNameTheirKey(t *testing.T) {
	body := "seeds = [1]\n[data]\nsource = \"synthetic\"\n[data.split]\nkind = \"temporal\"\ntest_days = 5\n[data.synthetic]\nitems = 50\nqueries = 40\ninteractions = 400\ndays = 4\n"
	_, err := runCommand(t, "-config", writeConfig(t, body), "-out", t.TempDir())
	wantError(t, err, "exp.toml:6: data.split.test_days: the train set of synthetic is empty (kind temporal, 400 pairs, 400 in test, 0 in validation)")
	body = "seeds = [1]\n[data]\nsource = \"synthetic\"\n[data.split]\nkind = \"leave_last_out\"\nvalidation = true\n[data.synthetic]\nitems = 50\nqueries = 40\ninteractions = 400\n"
	_, err = runCommand(t, "-config", writeConfig(t, body), "-out", t.TempDir(), "-set", "data.split.validation_users=1000")
	wantError(t, err, "-set data.split.validation_users=1000: data.split.validation_users: 1000 asked, but only")
}
