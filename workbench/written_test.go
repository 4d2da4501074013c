package workbench

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWrittenValuesUsedOrRefused: a value written where it would be replaced by a default or
// mean nothing is an error naming where it was written: a zero in a registered variant's own
// options table (which panicked), a zero in an element of an array of tables (which became the
// default, and an axis then named the run by the zero), an empty string or list of a key whose
// empty value means the default.
func TestWrittenValuesUsedOrRefused(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		sets       []string
		want       []string
	}{
		{"variant's options table", "[loss]\nvariant = \"tempered_plain\"\n[loss.options.tempered_plain]\nalpha = 0\n", nil,
			[]string{"exp.toml:4: loss.options.tempered_plain.alpha: 0 is not allowed (omit the key for the default 1)"}},
		{"variant's options table by -set", "[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"tempered_plain\"]\n",
			[]string{"loss.options.tempered_plain.alpha=0"},
			[]string{"run variant=tempered_plain,seed=1: -set loss.options.tempered_plain.alpha=0: loss.options.tempered_plain.alpha: 0 is not allowed"}},
		{"options table", "[loss]\nvariant = \"tempered_plain\"\n[loss.options]\nalpha = 0.0\n", nil,
			[]string{"exp.toml:4: loss.options.alpha: 0 is not allowed (omit the key for the default 1)"}},
		{"array of tables", "[sampler]\nkind = \"mixture\"\n[[sampler.of]]\nkind = \"in_batch\"\n[[sampler.of]]\nkind = \"uniform\"\nnegatives = 0\n", nil,
			[]string{"exp.toml:7: sampler.of[1].negatives: 0 is not allowed (omit the key for the default 64)"}},
		{"array of tables, not the last element", "[sampler]\nkind = \"mixture\"\n[[sampler.of]]\nkind = \"in_batch_unique\"\nnegatives = 0\n[[sampler.of]]\nkind = \"uniform\"\n", nil,
			[]string{"exp.toml:5: sampler.of[0].negatives: 0 is not allowed (omit the key for the default 64)"}},
		{"array of tables in an axis", "[[ablation]]\nkeys = [\"sampler.kind\", \"sampler.of\"]\nvalues = [[\"mixture\", [{kind = \"in_batch\"}, {kind = \"uniform\", negatives = 0}]]]\n", nil,
			[]string{"run sampler.kind=mixture,of=in_batch+uniform-0,seed=1: sampler.of[1].negatives: 0 is not allowed"}},
		{"empty string", "[plots]\ncolor_by = \"\"\n", nil, []string{`exp.toml:2: plots.color_by: "" written: leave the key out`}},
		{"empty list", "", []string{"plots.marker_by=[]"}, []string{`-set plots.marker_by=[]: plots.marker_by: [] written: leave the key out`}},
		{"declaration nothing reads", "[sampler]\ndeclare = \"unigram\"\n", nil,
			[]string{`exp.toml:2: sampler.declare: "unigram" is what the loss subtracts as the sampler's probabilities, and loss.variant = "plain" subtracts none`}},
		{"table of another loader", "[data]\nsource = \"synthetic\"\n[data.xmc]\ntrain = \"t.txt\"\n", nil,
			[]string{`exp.toml:3: data.xmc: only read by source xmc, not synthetic: remove the [data.xmc] table or set data.source = "xmc"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadAndPlan(t, tc.body, tc.sets...)
			wantError(t, err, tc.want...)
		})
	}
}

// TestErrorsNameWhereWritten: an error about a key names where the key was written: the file and
// its line, or the -set flag (not the file); an unknown key has its line; a -set value that is not
// TOML says how it was read.
func TestErrorsNameWhereWritten(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		sets       []string
		want       []string
	}{
		{"-set value", "[sampler]\nkind = \"popularity\"\nbeta = 0.5\n", []string{"sampler.beta=-0.5"},
			[]string{"-set sampler.beta=-0.5: sampler.beta: must be in [0, 10], got -0.5"}},
		{"file value", "[sampler]\nkind = \"popularity\"\n\nbeta = -0.5\n", nil,
			[]string{"exp.toml:4: sampler.beta: must be in [0, 10], got -0.5"}},
		{"-set table", "", []string{"data.synthetic={items = -1}", "data.source=synthetic"},
			[]string{"-set data.synthetic={items = -1}: data.synthetic.items:"}},
		{"unknown key", "seeds = [1]\n\n[loss]\ntemprature = 0.1\n", nil,
			[]string{"exp.toml:4: unknown key loss.temprature (did you mean loss.temperature?)"}},
		{"unknown keys", "[loss]\ntemprature = 0.1\n[train]\nepocs = 2\n", nil,
			[]string{"exp.toml:2: unknown key loss.temprature (did you mean loss.temperature?), train.epocs (did you mean train.epochs?) (line 4)"}},
		{"not a TOML list", "", []string{"loss.variant=[plain, logq]"},
			[]string{`-set loss.variant=[plain, logq]: [plain, logq] is not a TOML list or table (quote the strings in it: ["a", "b"])`}},
		{"not TOML", "", []string{"eval.k=10,100"},
			[]string{"-set eval.k=10,100: eval.k: incompatible types", "(10,100 is not a TOML value, so it was read as a string: write a list as [a, b]"}},
		// A bare word is rightly read as a string: an unknown name is no type error.
		{"misspelt name", "", []string{"loss.variant=logq_corected"},
			[]string{"-set loss.variant=logq_corected: loss.variant: unknown \"logq_corected\"", "did you mean logq_corrected?"}},
		// A value of an axis' key replaces the axis: its error is the -set's, not the file's axis'.
		{"axis value", "[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"logq\"]\n", []string{"loss.variant=nope"},
			[]string{"-set loss.variant=nope: loss.variant: unknown \"nope\""}},
		{"new axis value", "", []string{"loss.variant=[\"plain\", \"nope\"]"},
			[]string{"-set loss.variant=[\"plain\", \"nope\"]: loss.variant: unknown \"nope\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadAndPlan(t, tc.body, tc.sets...)
			wantError(t, err, tc.want...)
		})
	}
	// The hint of a value read as a string is for a setting of another type only.
	if _, err := loadAndPlan(t, "", "loss.variant=logq_corected"); err == nil || strings.Contains(err.Error(), "not a TOML value") {
		t.Errorf("a bare word's unknown name: %v, want no hint about TOML values", err)
	}
}

// TestDefaultSourceNamed: data that fail to load with data.source not written say that the
// default loader read them, and which source reads a CSV of events.
func TestDefaultSourceNamed(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "events.csv"), "user_id,item_id,ts\n1,2,3\n")
	write(t, filepath.Join(dir, "events.toml"), "[data]\npath = \"events.csv\"\n")
	_, err := runCommand(t, "-config", filepath.Join(dir, "events.toml"), "-out", filepath.Join(dir, "out"))
	wantError(t, err, "events.csv:1: expected 2 tab-separated column(s)",
		`(data.source is not set, so its default "wikilinks" read the data: set data.source = "interactions" for a CSV or TSV of events`)
}

// TestWrittenTablesMerge: a -set of a table merges into the table the file wrote, as setting it
// does: a zero the file wrote beside it is still checked.
func TestWrittenTablesMerge(t *testing.T) {
	_, err := loadAndPlan(t, "[data]\nsource = \"synthetic\"\n[data.synthetic]\nitems = 0\n", "data.synthetic={queries = 50}")
	wantError(t, err, "exp.toml:4: data.synthetic.items: 0 is not allowed")
}
