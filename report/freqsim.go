package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/estimators/freqsim"
	"github.com/samplingbias/workbench/internal/atomicfile"
	"github.com/samplingbias/workbench/internal/prob"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// tvWindow is the number of steps averaged into one point of the TV figures: a single step's TV
// is noisy enough to hide the curves' shape at a paper's column width.
const tvWindow = 20

// WriteFreqSim writes the report of Yi et al.'s section 6 frequency-estimation simulation in the
// directory dir, which must exist: tv.csv, summary.md and the TV figures (see tvFigures), every
// file atomically, with a warning line on warn for a figure drawn otherwise than asked. It
// returns the files written.
func WriteFreqSim(dir string, s freqsim.Settings, res []freqsim.Result, ps plots.Settings, warn io.Writer) ([]string, error) {
	var written []string
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"tv.csv", func(w io.Writer) error { return writeTVCSV(w, s.Interleaving, res) }},
		{"summary.md", func(w io.Writer) error { return writeTVSummary(w, s, res) }},
	} {
		path := filepath.Join(dir, f.name)
		if err := atomicfile.Write(path, f.write); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	figs, err := tvFigures(dir, s, res, ps, warn)
	return append(written, figs...), err
}

// InterleavingNote says, in a sentence's end, how the workers interleave and whether the outcome is reproducible.
func InterleavingNote(i freqsim.Interleaving) string {
	if i == freqsim.InterleavingThreads {
		return `as the operating system schedules their goroutines ("threads": machine-dependent, a rerun gives other TV and lost updates)`
	}
	return `in an order drawn from the seed ("simulated": reproducible on any machine)`
}

// writeTVCSV writes one row per step; the interleaving column is the workers' interleaving
// ("threads" marks machine-dependent rows; one worker has none to interleave but is labelled
// alike).
func writeTVCSV(w io.Writer, il freqsim.Interleaving, res []freqsim.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"alpha", "hashes", "workers", "interleaving", "seed", "step", "tv"}); err != nil {
		return err
	}
	row := make([]string, 7)
	row[3] = string(il)
	for _, r := range res {
		row[0] = strconv.FormatFloat(r.Alpha, 'g', -1, 64)
		row[1] = strconv.Itoa(r.Hashes)
		row[2] = strconv.Itoa(r.Workers)
		row[4] = strconv.FormatInt(r.Seed, 10)
		for t, tv := range r.TV {
			row[5] = strconv.Itoa(t + 1)
			row[6] = strconv.FormatFloat(tv, 'g', 6, 64)
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// cellOf collects the seeds of one (α, m, workers) cell.
func cellOf(res []freqsim.Result, alpha float64, hashes, workers int) []freqsim.Result {
	var out []freqsim.Result
	for _, r := range res {
		if r.Alpha == alpha && r.Hashes == hashes && r.Workers == workers {
			out = append(out, r)
		}
	}
	return out
}

// switchWindow is the number of steps after the switch of distribution over which the summary
// averages the TV: how fast an estimator recovers.
const switchWindow = 500

// writeTVSummary tabulates, per (α, m, workers), the steady-state TV at the end of each phase
// (mean of the last 1000 steps, or the phase if shorter), the mean TV over the switchWindow
// steps after the switch, each with its 95% interval across seeds, and the lost updates as a
// share of all bucket observations.
func writeTVSummary(w io.Writer, s freqsim.Settings, res []freqsim.Result) error {
	after := min(switchWindow, s.StepsPerPhase)
	fmt.Fprintf(w, "# Frequency-estimation simulation (Yi et al. 2019, section 6)\n\n")
	fmt.Fprintf(w, "M = %d items, B = %d, H = %d buckets in total, %d steps per phase; TV = Σ|p̂−p|/(2B).\n", s.Items, s.Batch, s.Buckets, s.StepsPerPhase)
	fmt.Fprintf(w, "Steady state = mean TV over the last %d steps of a phase; after the switch = mean TV over its first %d steps (lower = faster recovery). ", steadyWindow(s), after)
	fmt.Fprintf(w, "Mean ± 95%% CI half-width across seeds. ")
	fmt.Fprintf(w, "Workers = workers updating one lock-free estimator, at most that many steps apart; lost = bucket observations dropped because another worker had recorded a later step, as a share of the m·B observations per step. ")
	fmt.Fprintf(w, "The workers interleave %s.\n\n", InterleavingNote(s.Interleaving))
	fmt.Fprintf(w, "| alpha | hashes | workers | steady TV, phase 1 | TV after the switch | steady TV, phase 2 | lost |\n|---|---|---|---|---|---|---|\n")
	for _, a := range s.Alphas {
		for _, m := range s.Hashes {
			for _, k := range s.Workers {
				var p1, sw, p2, lost []float64
				for _, r := range cellOf(res, a, m, k) {
					x, y := freqsim.Summary(r.TV, steadyWindow(s))
					p1, p2 = append(p1, x), append(p2, y)
					sw = append(sw, prob.Mean(r.TV[s.StepsPerPhase:s.StepsPerPhase+after]))
					lost = append(lost, float64(r.Lost)/float64(len(r.TV)*m*s.Batch))
				}
				m1, _, h1 := metrics.MeanCI(p1)
				ms, _, hs := metrics.MeanCI(sw)
				m2, _, h2 := metrics.MeanCI(p2)
				fmt.Fprintf(w, "| %g | %d | %d | %s ± %s | %s ± %s | %s ± %s | %s%% |\n", a, m, k, decimals(m1, 4, false), decimals(h1-m1, 4, false),
					decimals(ms, 4, false), decimals(hs-ms, 4, false), decimals(m2, 4, false), decimals(h2-m2, 4, false), decimals(100*prob.Mean(lost), 1, false))
			}
		}
	}
	return nil
}

func steadyWindow(s freqsim.Settings) int { return min(1000, s.StepsPerPhase) }

// tvSeries is the mean over seeds of the windowed TV of one cell, with its 95% band.
func tvSeries(name string, cell []freqsim.Result) plots.LineSeries {
	n := len(cell[0].TV) / tvWindow
	ls := plots.LineSeries{Name: name, X: make([]float64, n), Y: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	per := make([]float64, len(cell))
	for i := 0; i < n; i++ {
		for j, r := range cell {
			per[j] = prob.Mean(r.TV[i*tvWindow : (i+1)*tvWindow])
		}
		ls.X[i] = float64((i + 1) * tvWindow)
		ls.Y[i], ls.Lo[i], ls.Hi[i] = metrics.MeanCI(per)
	}
	if len(cell) < 2 {
		ls.Lo, ls.Hi = nil, nil
	}
	return ls
}

// tvFigures draws TV against step: one line per α at the smallest m, one line per m at the
// smallest α (Yi et al.'s figures use m = 1 and α = 0.01, the defaults' smallest values), both
// with the fewest workers, and, when several worker counts are compared, one line per count at
// the smallest α and the largest m (the least collided estimate, where the lost updates show
// alone) in tv_by_workers. A figure that does not fit as asked is drawn another way
// (plots.Fit), with a warning on warn.
func tvFigures(out string, s freqsim.Settings, res []freqsim.Result, ps plots.Settings, warn io.Writer) ([]string, error) {
	m0, mMax := slices.Min(s.Hashes), slices.Max(s.Hashes)
	a0 := slices.Min(s.Alphas)
	k0 := slices.Min(s.Workers)
	var byAlpha, byHashes []plots.LineSeries
	for _, a := range s.Alphas {
		byAlpha = append(byAlpha, tvSeries(fmt.Sprintf("α = %g", a), cellOf(res, a, m0, k0)))
	}
	for _, m := range s.Hashes {
		byHashes = append(byHashes, tvSeries(fmt.Sprintf("m = %d", m), cellOf(res, a0, m, k0)))
	}
	mk := func(name string, series []plots.LineSeries, title string) figure {
		return figure{name, func(ps plots.Settings) (*plot.Plot, error) {
			return plots.Lines(series, plots.Labels{Title: title, X: "Training step", Y: "TV distance"}, plots.LineOptions{}, ps)
		}}
	}
	figures := []figure{
		mk("tv_by_alpha", byAlpha, fmt.Sprintf("Learning rate α (m = %d)", m0)),
		mk("tv_by_hashes", byHashes, fmt.Sprintf("Hash arrays m at equal memory (α = %g)", a0)),
	}
	if len(s.Workers) > 1 {
		var byWorkers []plots.LineSeries
		for _, k := range s.Workers {
			name := fmt.Sprintf("%d workers", k)
			if k == 1 {
				name = "1 worker"
			}
			byWorkers = append(byWorkers, tvSeries(name, cellOf(res, a0, mMax, k)))
		}
		figures = append(figures, mk("tv_by_workers", byWorkers, fmt.Sprintf("Workers sharing one lock-free estimator (α = %g, m = %d)", a0, mMax)))
	}
	return drawFigures(out, ps, figures, warn, true)
}
