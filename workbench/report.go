package workbench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/report"
	"github.com/samplingbias/workbench/samplers"
)

// writeReport writes the report (package report) of recs, the records of the finished runs of
// the grid runs, in cfg.Out, with a warning line on stdout for every figure drawn otherwise than
// asked.
func writeReport(cfg *Config, runs []plannedRun, recs []*runRecord, stdout io.Writer) error {
	planned := map[string]plannedRun{}
	for _, r := range runs {
		planned[r.ID] = r
	}
	out := make([]*report.Run, len(recs))
	done := map[string]bool{}
	for _, rec := range recs {
		done[rec.ID] = true
	}
	var missing []string
	for _, r := range runs {
		if !done[r.ID] {
			missing = append(missing, r.ID)
		}
	}
	for i, rec := range recs {
		r := planned[rec.ID]
		out[i] = rec.reportRun(r.cfg.Loss.Family(), r.cfg.Model.Sequence)
		if cfg.Report.WriteMLflow {
			if err := r.describe(out[i]); err != nil {
				return err
			}
		}
	}
	in := reportInput(cfg, out)
	in.Missing = missing
	return report.Write(cfg.Out, in, stdout)
}

// describe gives rr, r's run as the report reads it, what the MLflow tree holds of it beyond
// its results: when it finished (its metrics.json's time), its resolved settings and its files.
func (r plannedRun) describe(rr *report.Run) error {
	fi, err := os.Stat(filepath.Join(r.dir, "metrics.json"))
	if err != nil {
		return err
	}
	kvs, err := r.cfg.canonical(affectsTraining, affectsEvaluation)
	if err != nil {
		return err
	}
	rr.Finished = fi.ModTime()
	rr.Params = make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.Value
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		}
		rr.Params[kv.Key] = v
	}
	rr.Files = []string{filepath.Join(r.dir, "config.toml"), filepath.Join(r.dir, "curve.csv")}
	return nil
}

// reportInput is the report.Input of runs under cfg.
func reportInput(cfg *Config, runs []*report.Run) report.Input {
	plots := cfg.Plots
	plots.Labels = reportLabels(cfg)
	return report.Input{Runs: runs, Axes: axisKeyList(cfg.Ablation), Settings: cfg.Report, Plots: plots}
}

// reportLabels are cfg's plots.labels without those that name only values of the file's axes
// which a -set removed from the grid (the report rejects a label of no value of its grid, and a
// grid narrowed by -set keeps the labels of its file).
func reportLabels(cfg *Config) map[string]string {
	if len(cfg.Plots.Labels) == 0 || reflect.DeepEqual(cfg.fileAxes, cfg.Ablation) {
		return cfg.Plots.Labels
	}
	here, file := labelKeys(cfg.Ablation), labelKeys(cfg.fileAxes)
	out := map[string]string{}
	for k, v := range cfg.Plots.Labels {
		if here[k] || !file[k] {
			out[k] = v
		}
	}
	return out
}

// labelKeys are the keys a label of a value of the grid of axes may have: "value" and
// "name=value" as in run ids.
func labelKeys(axes []Axis) map[string]bool {
	known := map[string]bool{}
	cells, err := expand(axes, []int64{0})
	if err != nil {
		return known
	}
	names := idNames(axisKeyList(axes))
	for _, c := range cells {
		for _, s := range c.Settings {
			v := axisValue(s.Key, s.Value)
			known[v], known[names[s.Key]+"="+v] = true, true
		}
	}
	return known
}

// reportRun is the run as the report reads it; family is its loss's, seq its query tower's
// sequence settings.
func (rec *runRecord) reportRun(family losses.Family, seq models.SequenceSettings) *report.Run {
	r := &report.Run{ID: rec.ID, Group: rec.Group, Seed: rec.Seed, Axes: rec.Axes, LossFamily: string(family), Dataset: rec.Data.Name,
		Seconds: rec.Train.Seconds + rec.EvalSeconds,
		Items:   rec.Data.Items, SliceNotes: rec.Data.SliceNotes, Bins: rec.Data.Bins,
		Results: rec.Results, MostPopular: rec.MostPopular, Random: rec.Random, Curve: make(report.Curve, len(rec.Curve)), Ranks: rec.Ranks,
		Calibration: rec.Calibration}
	for i, p := range rec.Curve {
		r.Curve[i] = report.CurvePoint{Step: p.Step, Loss: p.Loss}
	}
	if a := rec.Train.SamplerAudit; a != nil {
		r.Audit = &report.Audit{TV: a.TV, Floor: a.Floor, HeadWorst: a.HeadWorst, Mass: a.Mass, Head: samplers.AuditHead, QUndefined: a.QUndefined,
			Unchecked: !a.Checked, Failure: a.Failure}
	}
	r.Selection = rec.selection()
	r.Split = &report.Split{Train: rec.Data.Train, Valid: rec.Data.Valid, Test: rec.Data.Test,
		ColdItems: datasets.CountOf(rec.Data.Report, datasets.CountColdItems), ColdQueries: datasets.CountOf(rec.Data.Report, datasets.CountColdQueries)}
	if seq.ReadsHistory() {
		r.Split.History = string(seq.Encoder)
	}
	if sel := rec.LATau; sel != nil {
		// The ranking at the strength the run selected is its ranking: the report reads it at
		// τ = 0, one row of its cell whatever strength each seed selected (report.Selection).
		r.Results = slices.Clone(r.Results)
		for i := range r.Results {
			r.Results[i].Tau = 0
		}
		if r.Ranks != nil {
			ranks := *r.Ranks
			ranks.Taus = []float64{0}
			if ranks.Sampled != nil {
				ranks.SampledTau = 0
			}
			r.Ranks = &ranks
		}
	}
	return r
}

// selection is what the run selected on its validation set, as the report reads it; nil when
// it selected nothing.
func (rec *runRecord) selection() *report.Selection {
	v, la := rec.Train.Validation, rec.LATau
	if v == nil && la == nil {
		return nil
	}
	sel := &report.Selection{}
	if v != nil {
		sel.Metric, sel.Epoch, sel.EarlyStopped = v.Metric, v.Epoch, v.EarlyStopped
	}
	if la != nil {
		sel.Metric, sel.LATau = la.Metric, &la.Tau
	}
	return sel
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
			rec.Axes[st.Key] = axisValue(st.Key, st.Value)
		}
		rec.Results = plannedResults(r.cfg)
		calibration, cal := plannedCalibration(r.cfg)
		rec.Results, rec.Calibration = append(rec.Results, calibration...), cal
		placeholders[i] = rec
	}
	err := report.Check(reportInput(cfg, placeholders), stdout)
	if err == nil {
		return nil
	}
	for _, r := range runs[1:] {
		if !slices.Equal(runSlices(r.cfg.Slices), runSlices(runs[0].cfg.Slices)) {
			return fmt.Errorf("the report of this grid cannot be drawn (checked before training): its runs have different slices (%s slices items by %s, %s by %s), which the report does not put side by side; give each slicing its own -out: %w",
				runs[0].ID, sliceNames(runs[0].cfg.Slices), r.ID, sliceNames(r.cfg.Slices), err)
		}
	}
	return fmt.Errorf("the report of this grid cannot be drawn (checked before training): %w", err)
}

// sliceNames lists the slices of a run's slice settings.
func sliceNames(s metrics.SliceSettings) string {
	sl := runSlices(s)
	names := make([]string, len(sl))
	for i, x := range sl {
		names[i] = x.String()
	}
	return strings.Join(names, ", ")
}

// runSlices are the slices a run's results have under its (resolved) slice settings: head,
// torso, tail and all, or the popularity bins and all.
func runSlices(s metrics.SliceSettings) []metrics.Slice {
	if s.Bins == 0 {
		return metrics.Slices()
	}
	out := make([]metrics.Slice, 0, s.Bins+1)
	for i := range s.Bins {
		out = append(out, metrics.SliceBin(i))
	}
	return append(out, metrics.SliceAll)
}

// axisKeyList lists the keys of the ablation axes in order.
func axisKeyList(axes []Axis) []string {
	var keys []string
	for _, a := range axes {
		keys = append(keys, a.names()...)
	}
	return keys
}
