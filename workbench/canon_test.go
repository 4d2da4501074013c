package workbench

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestConfigAffectsDeclared: every field of Config declares what it affects, with a known value,
// and every key of the config is governed by a known value (a field's own tag or its section's).
func TestConfigAffectsDeclared(t *testing.T) {
	known := []affects{affectsTraining, affectsEvaluation, affectsFigures, affectsGrid, affectsNothing}
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if a := affects(f.Tag.Get("affects")); !slices.Contains(toStrings(known), string(a)) {
			t.Errorf("Config.%s: affects tag %q, want one of %v", f.Name, a, known)
		}
	}
	for _, key := range configSchema().Keys("") {
		if a := configSchema().Affects(key); !slices.Contains(toStrings(known), a) {
			t.Errorf("%s: governed by affects %q, want one of %v", key, a, known)
		}
	}
}

func toStrings(as []affects) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return out
}

// TestCanonical: the canonical encoding of a small config, written by hand from the rules of
// Config.canonical (sorted dotted keys, zero values left out, shortest exact numbers, quoted
// strings, lists in brackets).
func TestCanonical(t *testing.T) {
	var c Config
	c.Experiment = "retrieval"
	c.Data.Source = "synthetic" // reads no file: no data.content (see TestDataIdentity)
	c.Out = "results/x"
	c.Seeds = []int64{3, 1}
	c.Loss.Temperature = 0.1
	c.Model.Hidden = []int{64, 32}
	c.Train.LearningRate = 1e-7
	c.Eval.K = []int{10}
	c.Plots.DPI = 100
	c.Ablation = []Axis{{Key: "loss.variant", Values: []any{"plain", "logq"}}}
	kvs, err := c.canonical(affectsTraining, affectsGrid)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range kvs {
		got = append(got, kv.Key+" = "+kv.Value)
	}
	want := []string{
		`ablation[0].key = "loss.variant"`,
		`ablation[0].values = ["plain", "logq"]`,
		`data.source = "synthetic"`,
		`experiment = "retrieval"`,
		`loss.temperature = 0.1`,
		`model.hidden = [64, 32]`,
		`seeds = [3, 1]`,
		`train.learning_rate = 1e-07`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("canonical\n got %q\nwant %q", got, want)
	}
	// Evaluation settings change hash but not trainHash; figures and out change neither.
	h0, _ := c.hash()
	t0, _ := c.trainHash()
	for _, tt := range []struct {
		name          string
		edit          func(*Config)
		hash, trained bool
	}{
		{"eval", func(c *Config) { c.Eval.K = []int{5} }, true, false},
		{"plots", func(c *Config) { c.Plots.DPI = 300 }, false, false},
		{"out", func(c *Config) { c.Out = "elsewhere" }, false, false},
		{"train.log_seconds", func(c *Config) { c.Train.LogSeconds = 2 }, false, false},
		{"eval.log_seconds", func(c *Config) { c.Eval.LogSeconds = 2 }, false, false},
		{"eval.workers", func(c *Config) { c.Eval.Workers = 7 }, false, false},
		{"loss", func(c *Config) { c.Loss.Temperature = 0.1000000000000001 }, true, true},
	} {
		d, _ := c.clone()
		tt.edit(d)
		h, _ := d.hash()
		th, _ := d.trainHash()
		if (h != h0) != tt.hash || (th != t0) != tt.trained {
			t.Errorf("%s: hash changed %v (want %v), trainHash changed %v (want %v)", tt.name, h != h0, tt.hash, th != t0, tt.trained)
		}
	}
	// Schema version 2 governed every leaf by its section's tag: train.log_seconds was a
	// training setting (see TestSchema2FolderHowItRuns for the migration).
	c.Train.LogSeconds = 2
	if kvs, err := c.canonicalAt(2, affectsTraining); err != nil || !slices.Contains(kvs, keyValue{"train.log_seconds", "2"}) {
		t.Errorf("version 2 encoding %v, %v: no train.log_seconds = 2", kvs, err)
	}
}

// TestCloneIsDeep: a clone equals its original and shares nothing with it.
func TestCloneIsDeep(t *testing.T) {
	_, cfg, err := loadConfig(smokeConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := cfg.clone()
	if !reflect.DeepEqual(cfg, d) {
		t.Fatal("the clone differs from the original")
	}
	d.Seeds[0] = 99
	d.Model.Hidden[0] = 99
	d.Ablation[0].Values[0] = "changed"
	d.Eval.K[0] = 99
	if cfg.Seeds[0] == 99 || cfg.Model.Hidden[0] == 99 || cfg.Ablation[0].Values[0] == "changed" || cfg.Eval.K[0] == 99 {
		t.Error("changing the clone changed the original")
	}
}

// TestFolderClaimRace: two different training configs claiming one fresh folder at the same
// moment: exactly one is accepted, every time; the same config twice: both are.
func TestFolderClaimRace(t *testing.T) {
	_, a, err := loadConfig(smokeConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := loadConfig(smokeConfig, []string{"loss.temperature=0.2"})
	if err != nil {
		t.Fatal(err)
	}
	axes := axisKeyList(a.Ablation)
	for try := range 25 {
		out := filepath.Join(t.TempDir(), "out")
		for _, pair := range [][2]*Config{{a, b}, {a, a}} {
			errs := make([]error, 2)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i, c := range pair {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errs[i] = claimFolder(out, c, axes, io.Discard)
				}()
			}
			close(start)
			wg.Wait()
			accepted := 0
			for _, err := range errs {
				if err == nil {
					accepted++
				} else if !strings.Contains(err.Error(), "loss.temperature = ") {
					t.Fatalf("try %d: refusal %q does not name loss.temperature", try, err)
				}
			}
			if pair[0] != pair[1] && accepted != 1 {
				t.Fatalf("try %d: %d of two different configs accepted, want 1", try, accepted)
			}
			if pair[0] == pair[1] && accepted != 2 {
				t.Fatalf("try %d: the same config refused: %v", try, errs)
			}
			os.RemoveAll(out)
		}
	}
}

// TestFolderSettingsAxes: settings under an axis (the axis itself, a key of a table axis, an
// element of a list-of-tables axis) do not count; a neighbour with a common prefix does.
func TestFolderSettingsAxes(t *testing.T) {
	f := folderSettings{axes: []string{"data.synthetic", "loss.temperature"}, values: map[string]string{
		"data.synthetic.items": "5", "loss.temperature": "0.1", "loss.temperature_scale": "1", "model.dim": "8",
	}}
	g := folderSettings{values: map[string]string{
		"data.synthetic.items": "6", "loss.temperature": "0.2", "loss.temperature_scale": "2", "model.dim": "8",
	}}
	want := []string{"loss.temperature_scale = 1 here, 2 in the folder"}
	if got := f.differences(g); !reflect.DeepEqual(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	if !underAxis("data.interactions.item_features[0].file", []string{"data.interactions.item_features"}) {
		t.Error("an element of a list-of-tables axis is not under it")
	}
}

// TestFolderSettingsZeroShown: a setting that resolves to its type's zero, which the canonical
// encoding leaves out, is shown in a refusal as what it resolves to, on either side: the default
// for an empty string (eval.filter = "none", with the value written when the config wrote one),
// the zero with its zero tag's meaning, a pointer's 0 as the config resolves it ("0 or unset"
// in the folder, which cannot tell), never "unset" for a value written.
func TestFolderSettingsZeroShown(t *testing.T) {
	const validated = "[data]\nsource = \"synthetic\"\n[data.split]\nkind = \"leave_last_out\"\nvalidation = true\n[train]\nvalidate_every = 1\n"
	for _, tt := range []struct {
		name       string
		here, them string // config bodies
		want       string // the difference, here against the folder
	}{
		{"a filter written as none", validated + "[eval]\nfilter = \"none\"\n", validated + "[eval]\nfilter = \"seen\"\n",
			`eval.filter = "none" (the default) here, "seen" in the folder`},
		{"a filter by default", validated, validated + "[eval]\nfilter = \"seen\"\n",
			`eval.filter = the default here, "seen" in the folder`},
		{"the folder's filter by default", validated + "[eval]\nfilter = \"seen\"\n", validated + "[eval]\nfilter = \"none\"\n",
			`eval.filter = "seen" here, the default in the folder`},
		{"a zero with a meaning", "[sampler]\nkind = \"hard\"\n", "[sampler]\nkind = \"hard\"\nfalse_negative_margin = 0.95\n",
			"sampler.false_negative_margin = 0 (no guard) here, 0.95 in the folder"},
		{"a pointer written 0", "[sampler]\nkind = \"popularity\"\nbeta = 0.0\n", "[sampler]\nkind = \"popularity\"\nbeta = 0.5\n",
			"sampler.beta = 0 here, 0.5 in the folder"},
		{"the folder's pointer", "[sampler]\nkind = \"popularity\"\nbeta = 0.5\n", "[sampler]\nkind = \"popularity\"\nbeta = 0.0\n",
			"sampler.beta = 0.5 here, 0 or unset in the folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			settings := func(body string) folderSettings {
				_, cfg, err := loadConfig(writeConfig(t, body), nil)
				if err != nil {
					t.Fatal(err)
				}
				f, err := newFolderSettings(cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			them := parseFolderSettings(settings(tt.them).encode()) // as read from the folder
			if got := settings(tt.here).differences(them); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("differences %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLegacyFolderRefused: a folder written before training.settings existed is refused with a
// clear error instead of being compared by hashes of another encoding.
func TestLegacyFolderRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(tomlHashPrefix+"0123456789abcdef\nseeds = [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(t, "-config", smokeConfig, "-out", dir)
	if err == nil || !strings.Contains(err.Error(), "an early version of the workbench, whose config hashes cannot be recomputed") {
		t.Errorf("error %v", err)
	}
}
