// Package report turns a grid's finished runs into claims: metrics.csv (every run's metrics
// with its axis values), summary.md (each cell's mean and 95% interval across seeds by slice,
// metric and K, the sanity baselines most popular and random, with the cells that chance
// cannot be told from, the popularity bins, paired differences against a baseline cell and the
// named contrasts of [[report.contrast]], Holm-adjusted on request), differences.csv,
// contrasts.csv and the figures: Recall@K by slice, the training-loss curves, Recall@K against
// every numeric axis, against popularity bins, the head–tail trade-off under post-hoc logit
// adjustment (Menon et al. 2021, "Long-tail learning via logit adjustment") and the contrasts'
// forest plots.
//
// Differences are paired by seed: the mean over the seeds both cells ran of cell A − cell B,
// with its Student-t interval (metrics.MeanCI); a contrast's p-value is the paired t-test's
// (metrics.TTestP) or, where that test says nothing (one common seed, or seeds that all differ
// alike, metrics.Equal), the paired randomisation test's over the test pairs (Smucker, Allan &
// Carterette, CIKM 2007), else none ("unresolved"), with an effect size, the standardised paired
// difference; Holm's step-down adjustment (Holm 1979, metrics.Holm) or Benjamini & Hochberg's
// (1995, metrics.BenjaminiHochberg) adjust each family of contrasts separately. The sanity
// baselines are measured on the models' protocol: the random ranking's Recall@K is
// min(K, M′)/M′ per pair, M′ the items its ranking holds after eval.filter (K/M without one). With
// the sampled evaluation, Kendall's τ_b (Kendall 1945) says how far the sampled estimates order the
// cells as the full metrics do (Krichene & Rendle, KDD 2020), and summary.md names the contrasts
// whose sign or significance changes. summary.md opens with a digest; docs/metrics.md defines every
// number. Runs measured against the true probabilities of their data (Run.Calibration, synthetic
// data) get a calibration section, each calibration metric by slice with the most calibrated cell
// in bold (the lowest ECE, the mass ratio nearest 1), and the reliability diagrams of every cell,
// their seeds' bins pooled (docs/calibration.md).
//
// In figures, colour and marker encode the grid's factors (plots.color_by, plots.marker_by),
// not cells, so that no two cells look alike at a dozen cells; plots.labels names the axis
// values.
//
// Check runs the report on placeholder runs of a planned grid, so that a mistake in the report's
// settings, or a figure that will not fit, is found before anything trains. The workbench
// package calls Check when it plans a grid and Write when its runs have finished (and for
// -report).
package report // import "github.com/samplingbias/workbench/report"
