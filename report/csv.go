package report

import (
	"encoding/csv"
	"io"
	"strconv"
)

// writeMetricsCSV writes the long-format table: one row per run × slice × metric × K (× τ of
// post-hoc logit adjustment, a column present only when some τ is not 0), plus one column per
// ablation axis named by its key.
func writeMetricsCSV(w io.Writer, recs []*Run, axes []string) error {
	withTau := false
	for _, rec := range recs {
		for _, r := range rec.Results {
			if r.Tau != 0 {
				withTau = true
			}
		}
	}
	cw := csv.NewWriter(w)
	header := []string{"run", "seed", "slice", "metric", "k"}
	if withTau {
		header = append(header, "la_tau")
	}
	header = append(header, "value")
	header = append(header, axes...)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, rec := range recs {
		for _, r := range rec.Results {
			row := []string{rec.ID, strconv.FormatInt(rec.Seed, 10), r.Slice.String(), string(r.Metric), strconv.Itoa(r.K)}
			if withTau {
				row = append(row, strconv.FormatFloat(r.Tau, 'g', -1, 64))
			}
			row = append(row, strconv.FormatFloat(r.Value, 'g', 8, 64))
			for _, a := range axes {
				row = append(row, rec.Axes[a])
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	if err := writeBaselineRows(cw, recs, withTau, len(axes)); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
