package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/samplingbias/workbench/metrics"
)

// writeMetricsCSV writes the long-format table: one row per run × slice × metric × K (× τ of
// post-hoc logit adjustment, a column present only when some τ is not 0; × test set, a column
// present only when the debiased test set was evaluated), its kind ("run", or "baseline" for the
// rows of the sanity baselines), plus one column per ablation axis named by its key.
func writeMetricsCSV(w io.Writer, recs []*Run, axes []string) error {
	var c csvColumns
	for _, rec := range recs {
		for _, r := range rec.Results {
			c.tau = c.tau || r.Tau != 0
			c.test = c.test || r.Test != metrics.TestNatural
		}
	}
	cw := csv.NewWriter(w)
	header := []string{"run", "kind", "seed", "slice", "metric", "k"}
	if c.tau {
		header = append(header, "la_tau")
	}
	if c.test {
		header = append(header, "test")
	}
	header = append(header, "value")
	header = append(header, axes...)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, rec := range recs {
		for _, r := range rec.Results {
			row := c.row(rec.ID, kindRun, rec.Seed, r)
			for _, a := range axes {
				row = append(row, rec.Axes[a])
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	if err := writeBaselineRows(cw, recs, c, len(axes)); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// What a row of metrics.csv is, its kind column.
const (
	kindRun      = "run"      // a run's result
	kindBaseline = "baseline" // a sanity baseline's (most_popular, random)
)

// csvColumns says which optional columns metrics.csv has: la_tau and test.
type csvColumns struct{ tau, test bool }

// row is the row of metrics.csv of result r of the run (or baseline) id of the kind and seed,
// up to its value.
func (c csvColumns) row(id, kind string, seed int64, r metrics.Result) []string {
	row := []string{id, kind, strconv.FormatInt(seed, 10), r.Slice.String(), string(r.Metric), strconv.Itoa(r.K)}
	if c.tau {
		row = append(row, strconv.FormatFloat(r.Tau, 'g', -1, 64))
	}
	if c.test {
		row = append(row, r.Test.String())
	}
	return append(row, strconv.FormatFloat(r.Value, 'g', 8, 64))
}
