package workbench

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/report"
	"github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// spoiledOptions are the options of the sampler spoiled_popularity: which declaration to spoil.
type spoiledOptions struct {
	Spoil string `toml:"spoil"`
}

// Resolve accepts the spoils spoiled knows.
func (o *spoiledOptions) Resolve() error {
	if _, ok := spoils[o.Spoil]; !ok {
		return fmt.Errorf("spoil: %q is none of none, row_q, nan_p, tiny_p", o.Spoil)
	}
	return nil
}

// spoils are the declarations spoiled_popularity spoils: the rows' positives left undeclared
// (row_q: log q = 0), column 1's p NaN (nan_p), or every p 0.01 (tiny_p).
var spoils = map[string]func(c *candidates.Step){
	"none":  func(*candidates.Step) {},
	"row_q": func(c *candidates.Step) { clear(c.Row(candidates.LogQ)) },
	"nan_p": func(c *candidates.Step) { c.Col(candidates.LogP)[1] = math.NaN() },
	"tiny_p": func(c *candidates.Step) {
		for _, side := range [][]float64{c.Col(candidates.LogP), c.Row(candidates.LogP)} {
			for i := range side {
				side[i] = math.Log(0.01)
			}
		}
	},
}

// A sampler registered for this test binary: popularity, its declaration spoiled by sampler.options.spoil.
func init() {
	err := samplers.Register("spoiled_popularity", samplers.Custom{
		New: func(options any, negatives int) (samplers.Sampler, error) {
			smp, err := samplers.New(samplers.Settings{Kind: samplers.KindPopularity, Negatives: negatives})
			return samplerstest.Spoiled(smp, spoils[options.(*spoiledOptions).Spoil]), err
		},
		Options: func() any { return new(spoiledOptions) },
	})
	if err != nil {
		panic(err)
	}
}

// TestSamplerAuditChecks: a run's audit judges the declarations as samplerstest.Audit does.
// Popularity's own declaration passes; declared wrong, in ways the total variation of the copies
// cannot see, the summary's audit line fails it, naming the item and the quantity: the rows'
// positives undeclared (q = 1 where the item's column says otherwise), a NaN p, and a p of 0.01
// for items drawn into most of the 64-of-300 draws' steps.
func TestSamplerAuditChecks(t *testing.T) {
	for _, tc := range []struct {
		spoil string
		want  string // a regular expression the audit line matches; "" for a pass
	}{
		{"none", ""},
		{"row_q", `fails \(seed 1\): step \d+: row \d+'s positive, item \d+, is declared q = 1, p = [0-9.e-]+, and as column \d+ q = [0-9.e-]+, p = [0-9.e-]+: the probabilities are the item's`},
		{"nan_p", `fails \(seed 1\): step 1: column 1, item \d+, declares log p = NaN, not the log of a probability`},
		{"tiny_p", `fails \(seed 1\): item \d+: inclusion probability p declared 0\.0100, empirical [0-9.]+ of the steps \(tolerance [0-9.]+\)`},
	} {
		t.Run(tc.spoil, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "seeds=[1]", "-set", "sampler.audit=true",
				"-set", `sampler.kind="spoiled_popularity"`, "-set", "sampler.negatives=64", "-set", fmt.Sprintf("sampler.options.spoil=%q", tc.spoil),
				"-only", "variant=plain"); err != nil {
				t.Fatal(err)
			}
			var line string
			for _, l := range strings.Split(string(readFile(t, filepath.Join(dir, "summary.md"))), "\n") {
				if strings.Contains(l, "sampler audit of") {
					line = l
				}
			}
			if line == "" {
				t.Fatal("summary.md has no sampler audit line")
			}
			if tc.want == "" {
				if strings.Contains(line, "fails") || !strings.Contains(line, "within sampling noise") {
					t.Errorf("a correct declaration does not pass:\n%s", line)
				}
				return
			}
			if !regexp.MustCompile(tc.want).MatchString(line) {
				t.Errorf("audit line:\n%s\nwant it to match %s", line, tc.want)
			}
		})
	}
}

// TestReportRunAuditCheck: the report reads a run's audit check from its record's
// sampler_audit: a record written before the check (no "checked") is unchecked, not passed, and
// a failure is carried to the report.
func TestReportRunAuditCheck(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       report.Audit
	}{
		{"predates the check", `{"tv": 0.1, "tv_noise_floor": 0.1}`, report.Audit{TV: 0.1, Floor: 0.1, Head: samplers.AuditHead, Unchecked: true}},
		{"passed", `{"tv": 0.1, "tv_noise_floor": 0.1, "checked": true}`, report.Audit{TV: 0.1, Floor: 0.1, Head: samplers.AuditHead}},
		{"failed", `{"tv": 0.1, "tv_noise_floor": 0.1, "checked": true, "failure": "item 3: x"}`,
			report.Audit{TV: 0.1, Floor: 0.1, Head: samplers.AuditHead, Failure: "item 3: x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &runRecord{}
			if err := json.Unmarshal([]byte(`{"train": {"sampler_audit": `+tc.json+`}}`), rec); err != nil {
				t.Fatal(err)
			}
			if got := rec.reportRun(losses.FamilySoftmax, models.SequenceSettings{}).Audit; got == nil || *got != tc.want {
				t.Errorf("audit %+v, want %+v", got, tc.want)
			}
		})
	}
}
