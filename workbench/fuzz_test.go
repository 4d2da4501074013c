package workbench

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/losses"
)

// temperedOptions are the options of the test variant tempered_plain, whose Resolve fills a
// default: a written alpha = 0 is then an error, never a default silently put in its place.
type temperedOptions struct {
	Alpha float64  `toml:"alpha"`
	Names []string `toml:"names"`
}

func (o *temperedOptions) Resolve() error {
	if o.Alpha == 0 {
		o.Alpha = 1
	}
	if !(o.Alpha > 0 && o.Alpha <= 10) {
		return fmt.Errorf("alpha: must be in (0, 10], got %v", o.Alpha)
	}
	return nil
}

// A variant with options registered for this test binary, so that the fuzzer reaches the
// per-variant options tables ([loss.options.tempered_plain]) and the checks of their values:
// alpha × the plain batch softmax's logits.
func init() {
	err := losses.Register("tempered_plain", losses.Custom{
		Expr: func(e *losses.Expr) (*gorgonia.Node, error) {
			f := gorgonia.Must(gorgonia.Mul(e.Logits(), e.Const(e.Options.(*temperedOptions).Alpha)))
			return e.Reduce(losses.SoftmaxLoss(e.AtPos(f), gorgonia.Must(gorgonia.Add(f, e.NegLog())))), nil
		},
		Options: func() any { return new(temperedOptions) },
	})
	if err != nil {
		panic(err)
	}
}

// FuzzConfig: arbitrary bytes as a config file plus arbitrary -set values (one per line of
// sets) never panic: loading and planning give an error, or a config whose every run is
// valid, that is, resolving it again changes nothing and gives no error. The seeds reach a
// registered variant's options, in [loss.options] and in its own table.
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
		{"[loss]\nvariant = \"tempered_plain\"\n[loss.options.tempered_plain]\nalpha = 0\n", ""},
		{"[loss.options]\nalpha = 2\n[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"tempered_plain\"]\n", "loss.options.tempered_plain.alpha=0"},
		{"[loss]\nvariant = \"tempered_plain\"\n", "loss.options.names=[]\nloss.options.alpha=0.5"},
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
