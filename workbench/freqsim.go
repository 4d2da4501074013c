package workbench

import (
	"context"
	"fmt"
	"io"

	"github.com/samplingbias/workbench/estimators/freqsim"
	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/report"
)

// runFreqSim runs Yi et al.'s section 6 simulation over freq_sim.alphas × freq_sim.hashes ×
// seeds and writes tv.csv, summary.md and the two TV figures. Like a retrieval grid's, it
// registers in the folder (a live command of other settings refuses it, see registerWriter) and
// writes its files under the report lock.
func runFreqSim(ctx context.Context, cfg *Config, o options, stdout io.Writer) (err error) {
	s := cfg.FreqSim
	jobs := s.Jobs(cfg.Seeds)
	if err := checkFreqSimMemory(s, min(max(o.jobs, 1), len(jobs))); err != nil {
		return err
	}
	if err := claimOutput(cfg.Out, cfg, stdout); err != nil {
		return err
	}
	release, err := registerWriter(cfg, nil, o, true)
	if err != nil {
		return err
	}
	defer func() { err = isetting.First(err, release()) }()
	fmt.Fprintf(stdout, "freq_sim: %d runs (alphas %v × hashes %v × workers %v × %d seeds), %d steps each, %d at a time\n",
		len(jobs), s.Alphas, s.Hashes, s.Workers, len(cfg.Seeds), 2*s.StepsPerPhase, o.jobs)
	fmt.Fprintf(stdout, "freq_sim: workers interleave %s\n", report.InterleavingNote(s.Interleaving))
	finished := 0
	res, err := freqsim.RunGrid(ctx, s, jobs, o.jobs, func(j freqsim.Job) {
		finished++
		fmt.Fprintf(stdout, "[%d/%d] alpha=%g hashes=%d workers=%d seed=%d\n", finished, len(jobs), j.Alpha, j.Hashes, j.Workers, j.Seed)
	})
	if err != nil {
		return err
	}
	unlock, err := lockReport(ctx, cfg.Out, o, stdout)
	if err != nil {
		return err
	}
	defer func() { err = isetting.First(err, unlock()) }()
	written, err := report.WriteFreqSim(cfg.Out, s, res, cfg.Plots, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files to %s (tv.csv, summary.md and the figures)\n", len(written), cfg.Out)
	return nil
}

// checkFreqSimMemory refuses a simulation whose parallel cells (freqsim.JobBytes each) exceed the
// machine's memory, naming the key of the largest part, before anything is written.
func checkFreqSimMemory(s freqsim.Settings, parallel int) error {
	parts, err := freqsim.JobBytes(s)
	if err != nil {
		return err
	}
	terms := make([]memoryTerm, len(parts))
	var total float64
	for i, p := range parts {
		terms[i] = memoryTerm{key: p.Key, what: fmt.Sprintf("%s of %d cells at a time", p.What, parallel), bytes: p.Bytes * float64(parallel)}
		total += terms[i].bytes
	}
	limit, source := machineMemory()
	return refuseMemory("the simulation", total, terms, limit, source)
}
