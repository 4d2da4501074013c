package workbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	isetting "github.com/samplingbias/workbench/internal/setting"
)

// listRuns prints the ids of the selected runs (of this shard, matching -only), one per line, on
// stdout and their count on stderr-like summary line after them, so that a job array can be sized.
func listRuns(runs []plannedRun, o options, stdout io.Writer) error {
	sel := selected(runs, o, true)
	for _, r := range sel {
		fmt.Fprintln(stdout, r.ID)
	}
	if o.shard.sharded() {
		fmt.Fprintf(stdout, "# %d of the grid's %s in %s\n", len(sel), plural(len(runs), "run"), o.shard)
	} else {
		fmt.Fprintf(stdout, "# %s\n", plural(len(sel), "run"))
	}
	return nil
}

// reportRetrieval is the report step: it trains nothing, and writes config.toml, metrics.csv,
// summary.md and the figures from the grid's runs that have finished with this config, naming
// those missing. A folder claimed for other training settings, or a run of the grid that holds
// results of another config, is refused.
func reportRetrieval(ctx context.Context, raw, cfg *Config, runs []plannedRun, o options, stdout io.Writer) (err error) {
	mine, err := newFolderSettings(cfg, axisKeyList(cfg.Ablation))
	if err != nil {
		return err
	}
	if err := refusePremigration(cfg.Out); err != nil {
		return err
	}
	if err := checkFolder(cfg.Out, cfg, mine, stdout); err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	release, err := registerWriter(cfg, nil, o, true)
	if err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	defer func() { err = isetting.First(err, release()) }()
	unlock, err := lockReport(ctx, cfg.Out, o, stdout)
	if err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	defer func() { err = isetting.First(err, unlock()) }()
	// The report's settings are checked against the whole grid: the report of the finished runs
	// then leaves out what only the missing ones could give.
	if err := checkReport(cfg, runs, stdout); err != nil {
		return err
	}
	var recs []*runRecord
	var missing, foreign, stale []string
	for _, r := range runs {
		rec, err := r.record()
		switch {
		case err != nil:
			return fmt.Errorf("-report: %w", err)
		case rec == nil:
			if err := r.tornRecord(); err != nil {
				fmt.Fprintf(stdout, "%s: %v\n", r.ID, err)
			}
			m := r.ID
			var held owner
			if readJSON(filepath.Join(r.dir, "claim.json"), &held) == nil {
				m += " (claimed by " + held.String() + ")"
			}
			missing = append(missing, m)
		case rec.ConfigHash == r.hash && rec.staleBaselines(r.cfg):
			stale = append(stale, r.ID)
		case rec.ConfigHash == r.hash:
			recs = append(recs, rec)
		case rec.TrainHash == r.trainHash:
			foreign = append(foreign, r.ID+" (evaluated with other [eval] or [slices] settings: run the experiment, not -report, to evaluate it again)")
		default:
			foreign = append(foreign, r.ID+" (trained with other settings)")
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("-report: %s in %s evaluated before its sanity baselines were filtered as its rankings are (eval.filter): "+
			"run the experiment, not -report, to evaluate them again from their saved models: %s", plural(len(stale), "run"), cfg.Out, strings.Join(stale, ", "))
	}
	if len(foreign) > 0 {
		return fmt.Errorf("-report: %d runs in %s hold results of another config: %s", len(foreign), cfg.Out, strings.Join(foreign, "; "))
	}
	if len(recs) == 0 {
		return errors.New("-report: none of the grid's runs has finished in " + cfg.Out)
	}
	fmt.Fprintf(stdout, "report: %d of %d runs finished", len(recs), len(runs))
	if len(missing) > 0 {
		fmt.Fprintf(stdout, "; missing %d: %s", len(missing), strings.Join(missing, ", "))
	}
	fmt.Fprintln(stdout)
	if err := writeFolderConfig(cfg.Out, raw); err != nil {
		return err
	}
	if err := writeReport(cfg, runs, recs, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "results of %d runs in %s (metrics.csv, summary.md, figures)\n", len(recs), cfg.Out)
	return nil
}
