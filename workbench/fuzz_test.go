package workbench

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzConfig: arbitrary bytes as a config file plus arbitrary -set values (one per line of
// sets) never panic: loading and planning give an error, or a config whose every run is
// valid, that is, resolving it again changes nothing and gives no error.
func FuzzConfig(f *testing.F) {
	smoke, err := os.ReadFile(smokeConfig)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []struct{ body, sets string }{
		{string(smoke), ""},
		{string(smoke), "train.epochs=0\nmodel.hidden=[]"},
		{"", "train.epochs=9223372036854775807"},
		{"seeds = []\n[eval]\nk = []\n", "loss.variant=logq"},
		{"experiment = \"freq_sim\"\n[freq_sim]\n", ""},
		{"[[ablation]]\nkeys = [\"loss.variant\", \"loss.temperature\"]\nvalues = [[\"plain\", 0.1], [\"logq\", 0.0]]\n", "out=x"},
		{"[[ablation]]\nkey = \"seeds\"\nvalues = [[1]]\n", "a..b=1\n=\nx"},
		{"[data]\nsource = \"synthetic\"\n[data.synthetic]\nitems = 0\n", "data.synthetic.items=-1"},
	} {
		f.Add([]byte(seed.body), seed.sets)
	}
	f.Fuzz(func(t *testing.T, body []byte, sets string) {
		var flags []string
		if sets != "" {
			flags = strings.Split(sets, "\n")
		}
		raw, cfg, err := parseConfig(filepath.Join("configs", "fuzz.toml"), body, flags)
		if err != nil {
			return
		}
		configs := []*Config{cfg}
		if cfg.Experiment == ExperimentRetrieval {
			runs, err := plan(raw, cfg)
			if err != nil {
				return
			}
			for _, r := range runs {
				configs = append(configs, r.cfg)
			}
		}
		for _, c := range configs {
			again, err := c.clone()
			if err != nil {
				t.Fatalf("a valid config does not round-trip: %v", err)
			}
			if err := again.resolve(toml.MetaData{}); err != nil {
				t.Fatalf("a valid config does not resolve again: %v", err)
			}
			if !reflect.DeepEqual(again, c) {
				t.Fatalf("resolving a valid config again changes it:\n%+v\nvs\n%+v", again, c)
			}
		}
	})
}
