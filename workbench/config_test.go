package workbench

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// writeConfig writes body to a config file in a fresh directory and returns its path.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "exp.toml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// trainHashOf is the training hash of the config body with the -set assignments sets.
func trainHashOf(t *testing.T, body string, sets ...string) string {
	t.Helper()
	_, cfg, err := loadConfig(writeConfig(t, body), sets)
	if err != nil {
		t.Fatal(err)
	}
	h, err := cfg.trainHash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		sets []string
		want []string // substrings of the error, in order
	}{
		{"syntax error has line and column", "[loss]\ntemperature = \n", nil, []string{"exp.toml:2:", "expected value"}},
		{"unclosed table", "[loss\nvariant = 1\n", nil, []string{"exp.toml:1:6:", "table name"}},
		{"unclosed table on line 2", "seeds = [1]\n[loss\nvariant = 1\n", nil, []string{"exp.toml:2:6:", "table name"}},
		{"unknown key", "[loss]\ntemprature = 0.1\n", nil, []string{"exp.toml", "unknown key loss.temprature (did you mean loss.temperature?)"}},
		{"unknown section", "[optimiser]\nlr = 1\n", nil, []string{"unknown key optimiser"}},
		{"wrong type", "[loss]\ntemperature = \"hot\"\n", nil, []string{"exp.toml:2: loss.temperature: incompatible types: expected a number, got a string"}},
		// A column index written as a number where the key takes a name or an index in quotes.
		{"index unquoted", "[data]\nsource = \"interactions\"\n[data.interactions]\nuser = 0 # the first column\n", nil,
			[]string{`exp.toml:4: data.interactions.user: incompatible types: expected a string, got an integer (write it in quotes: "0")`}},
		{"a list of tables written as a table", "[sampler]\nkind = \"mixture\"\n[sampler.of]\nkind = \"uniform\"\n", nil,
			[]string{"exp.toml:3: sampler.of: a list of tables, written as a table: give each element its own [[sampler.of]] header (or write of = [{ … }, …])"}},
		{"out of range", "[loss]\ntemperature = -1.0\n", nil, []string{"exp.toml", "loss.temperature:"}},
		{"bad enum lists the allowed names", "[loss]\nvariant = \"logQ\"\n", nil, []string{"loss.variant:", "logQ", "plain", "logq", "tail"}},
		{"misspelt enum", "[loss]\nvariant = \"lgoq\"\n", nil, []string{"exp.toml:2:", `loss.variant: unknown "lgoq" (allowed: plain, logq,`, "; did you mean logq?"}},
		{"misspelt section", "[trian]\nepochs = 1\n", nil, []string{"unknown key trian (did you mean train?)"}},
		{"bad estimator enum", "[estimator]\nkind = \"sketch\"\n", nil, []string{"estimator.kind:", "streaming", "multihash"}},
		{"typed enum names the line and key", "[train]\noptimizer = \"adamw\"\n", nil, []string{"exp.toml:2:", `train.optimizer: unknown "adamw" (allowed: sgd, momentum, adagrad, adam); did you mean adam?`}},
		{"bad nested enum", "[data.split]\nkind = \"time\"\n", nil, []string{"data.split.kind:", "temporal"}},
		{"bad experiment", "experiment = \"train\"\n", nil, []string{"experiment: unknown \"train\"", "retrieval", "freq_sim"}},
		{"section of the other experiment", "experiment = \"freq_sim\"\n[loss]\nvariant = \"logq\"\n", nil, []string{"loss: section not used by experiment \"freq_sim\""}},
		{"duplicate seed", "seeds = [1, 2, 1]\n", nil, []string{"seeds: duplicate value 1"}},
		{"set unknown key", "", []string{"loss.temprature=0.1"}, []string{"-set loss.temprature=0.1: unknown key loss.temprature (did you mean loss.temperature?)"}},
		{"set wrong type", "", []string{"train.batch_size=big"}, []string{"-set train.batch_size=big", "train.batch_size", "incompatible types"}},
		{"set bad value", "", []string{"train.batch_size=-3"}, []string{"train.batch_size:"}},
		{"set a float count", "", []string{"train.epochs=1e18"}, []string{"-set train.epochs=1e18", "train.epochs", "incompatible types"}},
		{"set without value", "", []string{"loss.variant"}, []string{"-set loss.variant: want section.key=value"}},
		{"set ablation", "", []string{"ablation=1"}, []string{"ablation axes cannot be overridden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadConfig(writeConfig(t, tt.body), tt.sets)
			wantError(t, err, tt.want...)
		})
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	_, _, err := loadConfig(filepath.Join(t.TempDir(), "nope.toml"), nil)
	if err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Fatalf("error %v, want one naming the file", err)
	}
}

func TestSetOverrides(t *testing.T) {
	raw, cfg, err := loadConfig(writeConfig(t, "[loss]\nvariant = \"plain\"\n"), []string{
		"loss.variant=logq",
		"loss.temperature=0.2",
		"eval.k=[5, 20]",
		"data.synthetic.items=123",
		"data.source=synthetic",
		"out=\"elsewhere\"",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Loss.Variant != "logq" || cfg.Loss.Temperature != 0.2 || !reflect.DeepEqual(cfg.Eval.K, []int{5, 20}) ||
		cfg.Data.Synthetic.Items != 123 || cfg.Data.Source != "synthetic" || cfg.Out != "elsewhere" {
		t.Errorf("overrides not applied: %+v", cfg)
	}
	if raw.Model.EmbeddingDim != 0 {
		t.Errorf("raw config has defaults filled: embedding_dim %d", raw.Model.EmbeddingDim)
	}
	if cfg.Model.EmbeddingDim == 0 {
		t.Error("resolved config has no defaults")
	}
}

func TestDefaultOut(t *testing.T) {
	_, cfg, err := loadConfig(writeConfig(t, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("results", "exp"); cfg.Out != want {
		t.Errorf("out = %q, want %q", cfg.Out, want)
	}
}

// TestAblationKeysCheckedFirst: a bad axis key or value is reported by plan, before any run.
func TestAblationKeysCheckedFirst(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{"[[ablation]]\nkey = \"loss.temprature\"\nvalues = [0.1]\n", "exp.toml:2: ablation[0].key: unknown key loss.temprature (did you mean loss.temperature?)"},
		{"[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"logQ\"]\n", "run variant=logQ,seed=1: loss.variant:"},
		{"[[ablation]]\nkey = \"train.batch_size\"\nvalues = [\"big\"]\n", "exp.toml:3: ablation[0].values: train.batch_size: incompatible types"},
	} {
		raw, cfg, err := loadConfig(writeConfig(t, tt.body), nil)
		if err == nil {
			_, err = plan(raw, cfg)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want it to contain %q", err, tt.want)
		}
	}
}

// TestCellDefaultsFollowTheCell: a default filled for one cell never leaks into another (the
// negatives of a uniform sampler must not be set on an in-batch cell).
func TestCellDefaultsFollowTheCell(t *testing.T) {
	raw, cfg, err := loadConfig(writeConfig(t, "[sampler]\nkind = \"uniform\"\n[[ablation]]\nkey = \"sampler.kind\"\nvalues = [\"uniform\", \"in_batch\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := plan(raw, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].cfg.Sampler.Negatives == 0 || runs[1].cfg.Sampler.Negatives != 0 || runs[0].cfg.geometry.Extra != runs[0].cfg.Sampler.Negatives ||
		runs[1].cfg.geometry.Extra != 0 {
		t.Errorf("negatives: uniform %d (geometry %d), in_batch %d (geometry %d)", runs[0].cfg.Sampler.Negatives, runs[0].cfg.geometry.Extra,
			runs[1].cfg.Sampler.Negatives, runs[1].cfg.geometry.Extra)
	}
}

// TestMovedKeys: the loss's old sampler keys are errors naming their new keys, in a file, with
// -set and as an ablation axis.
func TestMovedKeys(t *testing.T) {
	for _, tt := range []struct {
		body string
		sets []string
		want string
	}{
		{"[loss]\nsampler = \"uniform\"\n", nil, "loss.sampler: moved to sampler.kind"},
		{"[loss]\nnegatives = 4\n", nil, "loss.negatives: moved to sampler.negatives"},
		{"", []string{"loss.negatives=4"}, "loss.negatives: moved to sampler.negatives"},
		{"[[ablation]]\nkey = \"loss.sampler\"\nvalues = [\"uniform\"]\n", nil, "exp.toml:2: ablation[0].key: loss.sampler: moved to sampler.kind"},
	} {
		_, _, err := loadConfig(writeConfig(t, tt.body), tt.sets)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q %v: got %v, want an error containing %q", tt.body, tt.sets, err, tt.want)
		}
	}
}

// TestCanonicalSamplerKeys: the canonical training settings name the sampler's keys as the
// config does; in schema version 1 they were named by their keys before the [sampler] section,
// and full (the corpus variants' sampler) and the default declaration (of the sampler and of a
// mixture's components) by none, which migrating a folder of version 1 recomputes.
func TestCanonicalSamplerKeys(t *testing.T) {
	for _, tt := range []struct {
		version    int
		body       string
		want, lost []string
	}{
		{2, "[sampler]\nkind = \"uniform\"\n", []string{`sampler.kind = "uniform"`, "sampler.negatives = 64", `sampler.declare = "law"`}, []string{"loss.sampler", "loss.negatives"}},
		{2, "[loss]\nvariant = \"full\"\n", []string{`sampler.kind = "full"`}, nil},
		{1, "[sampler]\nkind = \"uniform\"\n", []string{`loss.sampler = "uniform"`, "loss.negatives = 64"}, []string{"sampler.kind", "sampler.negatives"}},
		{1, "", []string{`loss.sampler = "in_batch"`}, []string{"sampler.kind", "negatives"}},
		{1, "[loss]\nvariant = \"full\"\n", nil, []string{"sampler"}},
		{1, "[loss]\nvariant = \"logq\"\n[sampler]\ndeclare = \"unigram\"\n", []string{`sampler.declare = "unigram"`}, nil},
		{1, "[sampler]\nkind = \"mixture\"\n[[sampler.of]]\nkind = \"in_batch\"\n[[sampler.of]]\nkind = \"uniform\"\n", nil, []string{"declare"}},
	} {
		_, cfg, err := loadConfig(writeConfig(t, tt.body), nil)
		if err != nil {
			t.Fatal(err)
		}
		kvs, err := cfg.canonicalAt(tt.version, affectsTraining)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, kv := range kvs {
			lines = append(lines, kv.Key+" = "+kv.Value)
		}
		if !slices.IsSorted(lines) {
			t.Errorf("%q: version %d: lines not sorted", tt.body, tt.version)
		}
		text := strings.Join(lines, "\n")
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%q: version %d: canonical settings lack %q:\n%s", tt.body, tt.version, w, text)
			}
		}
		for _, l := range tt.lost {
			if strings.Contains(text, l) {
				t.Errorf("%q: version %d: canonical settings hold %q:\n%s", tt.body, tt.version, l, text)
			}
		}
	}
}

// TestSamplerAudit: sampler.audit = true writes each run's sampler_audit.csv (one line per item
// with the declared and the drawn inclusion and copies) and one line per cell in summary.md, with
// the TV's noise floor and its verdict.
func TestSamplerAudit(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "seeds=[1]", "-set", "sampler.audit=true",
		"-only", "variant=plain"); err != nil {
		t.Fatal(err)
	}
	csv := strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(dir, "runs", "variant=plain,seed=1", "sampler_audit.csv")))), "\n")
	if csv[0] != "item,count,declared_p,empirical_p,declared_copies,empirical_copies" || len(csv) != 1+300 {
		t.Errorf("sampler_audit.csv: header %q, %d lines, want 300 items", csv[0], len(csv)-1)
	}
	if summary := string(readFile(t, filepath.Join(dir, "summary.md"))); !strings.Contains(summary, "sampler audit of variant=plain") ||
		!strings.Contains(summary, "from sampling noise alone") {
		t.Errorf("summary.md has no sampler audit line with its noise floor:\n%s", summary)
	}
	// Uniform draws declared as the unigram law (sampler.declare): the audit says the draws do not
	// follow it.
	dir = t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "seeds=[1]", "-set", "sampler.audit=true",
		"-set", `sampler.kind="uniform"`, "-set", "sampler.negatives=64", "-set", `sampler.declare="unigram"`, "-only", "variant=plain"); err != nil {
		t.Fatal(err)
	}
	if summary := string(readFile(t, filepath.Join(dir, "summary.md"))); !strings.Contains(summary, "the draws do not follow the declared law") {
		t.Errorf("summary.md: uniform draws declared as the unigram law pass the audit:\n%s", summary)
	}
}

// TestSequenceConfigErrors: each bad setting of a query tower that reads histories is one error
// naming its key (and the line that wrote it): a sequence encoder on a source without
// timestamps or users, max_length < 1, heads not dividing the width, dropout outside [0, 1), an
// option of SASRec for the mean encoder, the towers' MLP keys with SASRec, SASRec's windows in
// sequential order, and a sampler that scores rows of its own per example.
func TestSequenceConfigErrors(t *testing.T) {
	ml := "[data]\nsource = \"interactions\"\npath = \"x\"\n"
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"wikilinks", "[model.sequence]\nencoder = \"mean\"\n", []string{"model.sequence.encoder:", `data.source "wikilinks" has none`}},
		{"xmc", "[data]\nsource = \"xmc\"\npath = \"x\"\n[model.sequence]\nencoder = \"sasrec\"\n", []string{"model.sequence.encoder:", `data.source "xmc" has none`}},
		{"untimed interactions", ml + "[data.interactions]\ntime = \"none\"\n[model.sequence]\nencoder = \"sasrec\"\n", []string{"model.sequence.encoder:", `data.interactions.time is "none"`}},
		{"max_length", ml + "[model.sequence]\nencoder = \"sasrec\"\nmax_length = 0\n", []string{"exp.toml:", "model.sequence.max_length:"}},
		{"max_length negative", ml + "[model.sequence]\nencoder = \"mean\"\nmax_length = -2\n", []string{"exp.toml:", "model.sequence.max_length:"}},
		{"heads", ml + "[model]\nembedding_dim = 64\n[model.sequence]\nencoder = \"sasrec\"\nheads = 3\n", []string{"model.sequence.heads:", "3 heads do not divide the width 64"}},
		{"dropout 1", ml + "[model.sequence]\nencoder = \"sasrec\"\ndropout = 1.0\n", []string{"exp.toml:", "model.sequence.dropout:"}},
		{"dropout negative", ml + "[model.sequence]\nencoder = \"sasrec\"\ndropout = -0.1\n", []string{"model.sequence.dropout:"}},
		{"blocks of the mean", ml + "[model.sequence]\nencoder = \"mean\"\nblocks = 2\n", []string{"model.sequence.blocks:", "only for encoder \"sasrec\""}},
		{"max_length without encoder", ml + "[model.sequence]\nmax_length = 20\n", []string{"model.sequence.max_length:"}},
		{"hidden with sasrec", ml + "[model]\nhidden = [64]\n[model.sequence]\nencoder = \"sasrec\"\n", []string{"exp.toml:", "model.hidden:", "not used with sequence.encoder \"sasrec\""}},
		{"sequential sasrec", ml + "[train]\norder = \"sequential\"\n[model.sequence]\nencoder = \"sasrec\"\n", []string{"train.order:", "SASRec trains windows"}},
		{"embedding_scale unknown", ml + "[model.sequence]\nencoder = \"sasrec\"\nembedding_scale = \"sqrt\"\n", []string{"exp.toml:", "model.sequence.embedding_scale:", "sqrt_d"}},
		{"embedding_scale of the mean", ml + "[model.sequence]\nencoder = \"mean\"\nembedding_scale = \"none\"\n", []string{"exp.toml:", "model.sequence.embedding_scale:", "only for encoder \"sasrec\""}},
		{"embedding_scale without encoder", ml + "[model.sequence]\nembedding_scale = \"sqrt_d\"\n", []string{"model.sequence.embedding_scale:", "only for encoder \"sasrec\""}},
		{"layer_norm_epsilon 0", ml + "[model.sequence]\nencoder = \"sasrec\"\nlayer_norm_epsilon = 0.0\n", []string{"exp.toml:", "model.sequence.layer_norm_epsilon:", "positive"}},
		{"layer_norm_epsilon negative", ml + "[model.sequence]\nencoder = \"sasrec\"\nlayer_norm_epsilon = -1e-5\n", []string{"model.sequence.layer_norm_epsilon:", "positive"}},
		{"layer_norm_epsilon inf", ml + "[model.sequence]\nencoder = \"sasrec\"\nlayer_norm_epsilon = inf\n", []string{"model.sequence.layer_norm_epsilon:", "positive"}},
		{"layer_norm_epsilon nan", ml + "[model.sequence]\nencoder = \"sasrec\"\nlayer_norm_epsilon = nan\n", []string{"model.sequence.layer_norm_epsilon:", "positive"}},
		{"layer_norm_epsilon of the mean", ml + "[model.sequence]\nencoder = \"mean\"\nlayer_norm_epsilon = 1e-5\n", []string{"exp.toml:", "model.sequence.layer_norm_epsilon:", "only for encoder \"sasrec\""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := loadConfig(writeConfig(t, c.body), nil)
			wantError(t, err, c.want...)
			if err != nil && strings.Count(err.Error(), "model.sequence.") > 1 {
				t.Errorf("one error per key: %v", err)
			}
		})
	}
}

// TestSASRecFormIdentity: a SASRec config that does not write embedding_scale and
// layer_norm_epsilon hashes as before these keys existed (before: the training hash of this
// config computed by the workbench at commit 5dc3feb, which had neither key), and so does one that writes Kang & McAuley's
// values, "sqrt_d" and 1e-8; another scale or ε is another training.
func TestSASRecFormIdentity(t *testing.T) {
	const body = "[data]\nsource = \"synthetic\"\n[model.sequence]\nencoder = \"sasrec\"\n"
	const before = "d49127340d643f66"
	for _, c := range []struct {
		name string
		sets []string
		same bool
	}{
		{"unset", nil, true},
		{"kang written", []string{"model.sequence.embedding_scale=sqrt_d", "model.sequence.layer_norm_epsilon=1e-8"}, true},
		{"scale none", []string{"model.sequence.embedding_scale=none"}, false},
		{"epsilon 1e-5", []string{"model.sequence.layer_norm_epsilon=1e-5"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := trainHashOf(t, body, c.sets...); (got == before) != c.same {
				t.Errorf("training hash %s, before the keys %s: same %v, want %v", got, before, got == before, c.same)
			}
		})
	}
}
