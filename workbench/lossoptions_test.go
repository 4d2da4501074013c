package workbench

import (
	"fmt"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/losses"
)

// scaledOptions are the options of the test variant scaled_plain.
type scaledOptions struct {
	Factor float64 `toml:"factor"`
}

func (o *scaledOptions) Resolve() error {
	if o.Factor <= 0 {
		return fmt.Errorf("factor: must be > 0, got %v", o.Factor)
	}
	return nil
}

// A variant registered for this test binary: factor × the plain batch softmax.
func init() {
	err := losses.Register("scaled_plain", losses.Custom{
		Expr: func(e *losses.Expr) (*gorgonia.Node, error) {
			f := e.Logits()
			l := e.Reduce(losses.SoftmaxLoss(e.AtPos(f), gorgonia.Must(gorgonia.Add(f, e.NegLog()))))
			return gorgonia.Mul(l, e.Const(e.Options.(*scaledOptions).Factor))
		},
		Options: func() any { return new(scaledOptions) },
	})
	if err != nil {
		panic(err)
	}
}

// TestRegisteredLossOptions: the [loss.options] table of a registered variant
// is decoded strictly, from the file and from -set, survives the config's
// clone and enters its hash; an unknown, mistyped or invalid option and an
// option of a built-in variant are errors naming the key.
func TestRegisteredLossOptions(t *testing.T) {
	body := "[loss]\nvariant = \"scaled_plain\"\n[loss.options]\nfactor = 2.5\n"
	raw, cfg, err := loadConfig(writeConfig(t, body), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Loss.Options["factor"]; got != 2.5 {
		t.Errorf("resolved loss.options.factor = %v, want 2.5", got)
	}
	_, cfg2, err := loadConfig(writeConfig(t, body), []string{"loss.options.factor=3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg2.Loss.Options["factor"]; got != 3.0 { // resolved: the option's type, float64

		t.Errorf("-set loss.options.factor=3 gave %v (%T)", got, got)
	}
	h1, err := cfg.hash()
	if err != nil {
		t.Fatal(err)
	}
	h2, err := cfg2.hash()
	if err != nil {
		t.Fatal(err)
	}
	if h1 == h2 {
		t.Error("configs differing only in loss.options.factor hash the same")
	}
	if raw.Loss.Variant != "scaled_plain" {
		t.Errorf("raw variant %q", raw.Loss.Variant)
	}
	for _, tc := range []struct {
		body string
		sets []string
		want string
	}{
		{body, []string{"loss.options.scale=2"}, "loss.options.scale: unknown option of variant scaled_plain (it has: factor)"},
		{body, []string{"loss.options.factor=-1"}, "loss.options.factor: must be > 0, got -1"},
		{body, []string{`loss.options.factor="big"`}, `-set loss.options.factor="big": loss.options.factor: variant scaled_plain: incompatible types`},
		{"[loss]\nvariant = \"plain\"\n[loss.options]\nfactor = 2.5\n", nil, "loss.options.factor: variant plain has no options"},
		{"[loss]\nvariant = \"scaled_plain\"\nform = \"decoupled\"\n", nil, "loss.form: only for constant"},
		// The table of another variant than the run's is checked as that variant's runs read it
		// (it was skipped): a grid with none of them would never see its mistakes.
		{body, []string{"loss.options.gbce.t=5"}, "-set loss.options.gbce.t=5: loss.options.gbce.t: must be in [0, 1], got 5"},
		{body, []string{"loss.options.gbce.bogus=1"}, "loss.options.gbce.bogus: unknown option of variant gbce (it has: t)"},
	} {
		_, _, err := loadConfig(writeConfig(t, tc.body), tc.sets)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %v: got %v, want an error containing %q", tc.body, tc.sets, err, tc.want)
		}
	}
}

// TestSetOptionsTableLocated: an error about a table of loss.options that a -set made by writing
// a key in it (a misspelt or built-in variant's name) names that -set, as every -set error does;
// a table the file wrote is the file's, at its line, whatever key a -set added to it.
func TestSetOptionsTableLocated(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		sets []string
		want string
	}{
		{"a built-in variant's table", "", []string{"loss.options.logq.probabilty=1"},
			"-set loss.options.logq.probabilty=1: loss.options.logq: variant logq is built in and has no options"},
		{"no such variant", "", []string{"loss.options.lgoq.x=1"},
			"-set loss.options.lgoq.x=1: loss.options.lgoq: a table of options is named after a registered variant, and no variant lgoq is registered (did you mean logq?)"},
		{"two unknown options", "", []string{"loss.options.gbce={a=1,b=2}"},
			"-set loss.options.gbce={a=1,b=2}: loss.options.gbce.a, options.b: unknown option of variant gbce (it has: t)"},
		{"the file's table", "seeds = [1]\n[loss.options.logq]\nx = 1\n", []string{"loss.options.logq.y=2"},
			"exp.toml:2: loss.options.logq: variant logq is built in and has no options"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadConfig(writeConfig(t, tt.body), tt.sets)
			wantError(t, err, tt.want)
		})
	}
}

// TestGBCESamplers: gbce, whose β is calibrated for uniform negatives (Petrov & Macdonald's
// α = k/(M − 1)), loads with the uniform samplers and with popularity at β = 0, and is one error
// naming loss.variant and the sampler with the batch's negatives or popularity's at β > 0.
func TestGBCESamplers(t *testing.T) {
	for _, tt := range []struct {
		sampler string
		want    []string // nil: the config loads
	}{
		{"kind = \"uniform\"\nnegatives = 8", nil},
		{"kind = \"uniform_per_row\"\nnegatives = 8", nil},
		{"kind = \"popularity\"\nnegatives = 8\nbeta = 0.0", nil},
		{"kind = \"popularity\"\nnegatives = 8", []string{"loss.variant: gbce needs negatives drawn uniformly", "sampler popularity does not draw them uniformly"}},
		{"kind = \"in_batch_unique\"\nnegatives = 8", []string{"loss.variant: gbce needs negatives drawn uniformly", "sampler in_batch_unique does not draw them uniformly"}},
		{"kind = \"in_batch\"", []string{"loss.variant: gbce needs negatives drawn uniformly", "sampler in_batch takes them from the batch"}},
		{"kind = \"mixed\"\nnegatives = 8", []string{"loss.variant: gbce", "sampler mixed takes them from the batch"}},
	} {
		t.Run(tt.sampler, func(t *testing.T) {
			_, _, err := loadConfig(writeConfig(t, "[loss]\nvariant = \"gbce\"\n[sampler]\n"+tt.sampler+"\n"), nil)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, tt.want...)
		})
	}
}
