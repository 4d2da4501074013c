package workbench

import (
	"io"

	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/report"
	"github.com/samplingbias/workbench/samplers"
)

// writeReport writes the report (package report) of recs, the records of the finished runs of
// the grid runs, in cfg.Out, with a warning line on stdout for every figure drawn otherwise than
// asked.
func writeReport(cfg *Config, runs []plannedRun, recs []*runRecord, stdout io.Writer) error {
	family := map[string]losses.Family{}
	for _, r := range runs {
		family[r.ID] = r.cfg.Loss.Family()
	}
	out := make([]*report.Run, len(recs))
	for i, rec := range recs {
		out[i] = rec.reportRun(family[rec.ID])
	}
	return report.Write(cfg.Out, reportInput(cfg, out), stdout)
}

// reportInput is the report.Input of runs under cfg.
func reportInput(cfg *Config, runs []*report.Run) report.Input {
	return report.Input{Runs: runs, Axes: axisKeyList(cfg.Ablation), Settings: cfg.Report, Plots: cfg.Plots}
}

// reportRun is the run as the report reads it; family is its loss's.
func (rec *runRecord) reportRun(family losses.Family) *report.Run {
	r := &report.Run{ID: rec.ID, Group: rec.Group, Seed: rec.Seed, Axes: rec.Axes, LossFamily: string(family), Dataset: rec.Data.Name,
		Items: rec.Data.Items, SliceNotes: rec.Data.SliceNotes, Bins: rec.Data.Bins,
		Results: rec.Results, MostPopular: rec.MostPopular, Curve: make(report.Curve, len(rec.Curve)), Ranks: rec.Ranks}
	for i, p := range rec.Curve {
		r.Curve[i] = report.CurvePoint{Step: p.Step, Loss: p.Loss}
	}
	if a := rec.Train.SamplerAudit; a != nil {
		r.Audit = &report.Audit{TV: a.TV, Floor: a.Floor, HeadWorst: a.HeadWorst, Head: samplers.AuditHead}
	}
	return r
}

// checkReport checks, once the grid is planned and before anything trains, what the report
// will need (report.Check), from placeholder results of the planned runs (plannedResults) and a
// two-point loss curve.
func checkReport(cfg *Config, runs []plannedRun, stdout io.Writer) error {
	placeholders := make([]*report.Run, len(runs))
	for i, r := range runs {
		rec := &report.Run{ID: r.ID, Group: r.Group, Seed: r.Seed, Axes: map[string]string{}, LossFamily: string(r.cfg.Loss.Family()),
			Curve: report.Curve{{Step: 1, Loss: 1}, {Step: 2, Loss: 1}}}
		for _, st := range r.Settings {
			rec.Axes[st.Key] = formatValue(st.Value)
		}
		rec.Results = plannedResults(r.cfg)
		placeholders[i] = rec
	}
	return report.Check(reportInput(cfg, placeholders), stdout)
}

// axisKeyList lists the keys of the ablation axes in order.
func axisKeyList(axes []Axis) []string {
	var keys []string
	for _, a := range axes {
		if a.Key != "" {
			keys = append(keys, a.Key)
		}
		keys = append(keys, a.Keys...)
	}
	return keys
}
