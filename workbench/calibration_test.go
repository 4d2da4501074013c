package workbench

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
)

// TestCalibrationEndToEnd: a run on the synthetic source is measured against its true
// probabilities: metrics.csv has its calibration metrics by slice, metrics.json its reliability
// curves over every test query, summary.md the calibration section and the report the
// reliability figures of the link and of P̂.
func TestCalibrationEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$"); err != nil {
		t.Fatal(err)
	}
	csv := string(readFile(t, filepath.Join(dir, "metrics.csv")))
	for _, want := range []string{",head,ece,0,", ",tail,ece_rel,0,", ",torso,mass_ratio,0,", ",all,phat_ece,0,", ",all,phat_mass_ratio,0,"} {
		if !strings.Contains(csv, want) {
			t.Errorf("metrics.csv has no row with %q", want)
		}
	}
	var rec runRecord
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "runs", "variant=logq,seed=1", "metrics.json")), &rec); err != nil {
		t.Fatal(err)
	}
	c := rec.Calibration
	if c == nil || c.Link != metrics.LinkSoftmax || c.Queries != rec.Data.TestQueries || c.TestQueries != c.Queries || c.Items != 300 ||
		c.PHatNegatives != 127 || len(c.Curves) != 2 {
		t.Fatalf("calibration %+v, test queries %d", c, rec.Data.TestQueries)
	}
	var pairs int64
	for _, b := range c.Curves[0].Bins {
		pairs += b.Pairs
	}
	if pairs != int64(c.Queries*c.Items) {
		t.Errorf("the curve holds %d pairs, want %d queries × %d items", pairs, c.Queries, c.Items)
	}
	summary := string(readFile(t, filepath.Join(dir, "summary.md")))
	for _, want := range []string{"## Calibration against the true P(item | query)", "Links: plain: softmax, P̂ with k' = 127", "### ECE / mean p", "### ΣP̂ / Σp"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	for _, f := range []string{"reliability.png", "reliability_phat.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestCalibratePlanted: through the workbench's glue (each test query's truth the law of its
// test pairs given their days), a model whose logits are the log of that law, with the items'
// embeddings the identity, has ECE over the mean truth ~0 (float32 rounding of the logits,
// below 1e-5); the same model planted with the law of the first day instead, which the
// popularity drift makes wrong for the later test days, does not (above 0.1). Data without a
// truth, or a loss without a probability, are not measured.
func TestCalibratePlanted(t *testing.T) {
	_, cfg, err := loadConfig(writeConfig(t, `
[data]
source = "synthetic"
[data.synthetic]
items = 40
queries = 30
interactions = 3000
clusters = 3
days = 4
drift = 0.3
[data.split]
kind = "temporal"
test_fraction = 0.4
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load(cfg.Data, cfg.DataSeed)
	if err != nil {
		t.Fatal(err)
	}
	var queries []int32
	seen := map[int32]bool{}
	days := map[int32][]int32{}
	for _, it := range ds.Test {
		if !seen[it.Query] {
			seen[it.Query] = true
			queries = append(queries, it.Query)
		}
		days[it.Query] = append(days[it.Query], it.Day)
	}
	if ds.Test[0].Day == ds.Test[len(ds.Test)-1].Day {
		t.Fatal("the test pairs fall on one day: the mixture over days is not exercised")
	}
	m := ds.Items
	plant := func(law func(q int32, dst []float64) error) metrics.Input {
		in := metrics.Input{Dim: m, U: make([]float32, len(queries)*m), V: make([]float32, m*m)}
		p := make([]float64, m)
		for r, q := range queries {
			if err := law(q, p); err != nil {
				t.Fatal(err)
			}
			for j, v := range p {
				in.U[r*m+j] = float32(math.Log(v))
			}
		}
		for j := range m {
			in.V[j*m+j] = 1
		}
		return in
	}
	value := func(in metrics.Input) float64 {
		_, res, err := calibrate(context.Background(), ds, cfg, in, queries, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Metric == metrics.MetricECERel && r.Slice == metrics.SliceAll {
				return r.Value
			}
		}
		t.Fatalf("no ece_rel of all pairs in %v", res)
		return 0
	}
	planted := plant(func(q int32, dst []float64) error { return ds.Truth.Mixture(q, days[q], dst) })
	right := value(planted)
	wrong := value(plant(func(q int32, dst []float64) error { return ds.Truth.Conditional(q, 0, dst) }))
	if right > 1e-5 || wrong < 0.1 {
		t.Errorf("ECE over the mean truth: %.3g with the law of the test days (want ~0), %.3g with day 0's (want > 0.1)", right, wrong)
	}
	regression := *cfg
	regression.Loss.Variant = losses.VariantMSEGramian
	if cal, res, err := calibrate(context.Background(), ds, &regression, planted, queries, 1); cal != nil || res != nil || err != nil {
		t.Errorf("mse_gramian: %v, %v, %v", cal, res, err)
	}
	ds.Truth = nil
	if cal, res, err := calibrate(context.Background(), ds, cfg, planted, queries, 1); cal != nil || res != nil || err != nil {
		t.Errorf("data without a truth: %v, %v, %v", cal, res, err)
	}
}
