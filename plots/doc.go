// Package plots draws the workbench's figures with gonum.org/v1/plot, styled to be pasted into a
// paper at a column's width: grouped bar charts of Recall@K by popularity slice with 95%
// confidence-interval error bars (Yi et al. 2019, "Sampling-Bias-Corrected Neural Modeling for
// Large Corpus Item Recommendations", section 7; Rawat et al. 2021, "Disentangling Sampling and
// Labeling Bias for Learning in Large-Output Spaces", section 5.2), and line plots with optional
// translucent bands, e.g. the total-variation error of the streaming frequency estimators
// against the training step (Yi et al. section 6), training-loss curves, or Recall@K against the
// softmax temperature; and trade-off scatters (Tradeoff) of one point per variant with
// intervals in both directions, joined to its post-hoc logit-adjusted forms (Menon et al. 2021,
// "Long-tail learning via logit adjustment"), e.g. head against tail Recall@K. LinePanels draws
// line plots side by side with one legend, one panel per loss family or popularity slice, each
// with its own y axis; ScatterPanels draws such scatters side by side, optionally with the
// identity line, e.g. each cell's full Recall@K against its sampled estimates (Krichene & Rendle,
// "On Sampled Metrics for Item Recommendation", KDD 2020). Reliability draws a reliability
// diagram of probabilities that span decades (log–log, with the diagonal of a calibrated model)
// beside the pairs of each bin.
//
// Builders return a *plot.Plot, in gonum/plot's style, which Save writes as PNG (at the
// configured DPI), SVG or PDF, one file per format, each written atomically. Every figure uses
// the same conventions:
//
//   - series i is drawn with colour Color(i) of the Okabe–Ito palette (Wong 2011, "Points of
//     view: Color blindness", Nature Methods 8:441), which colour-blind readers can tell apart,
//     and, so that the figure survives grayscale printing, line i with dash pattern Dashes(i)
//     and marker Marker(i), bar i with hatching pattern i; 8 colours and 7 patterns make the
//     first DistinctSeries = 56 series of a figure differ in colour or pattern, series i and
//     i+8 in pattern;
//   - the legend sits in its own band between the title and the data area, in as many columns
//     as fit, or beside the data area (Settings.Legend), so it never covers data;
//   - text sizes follow Settings.FontSize in points at the final printed size, so that a figure
//     printed at Settings.Width inches reads like the paper's body text.
//
// Build a figure and Save it with the same Settings: the legend's layout depends on the width.
// Series longer than the figure has pixel columns are drawn through their M4 aggregate
// (Jugel et al. 2014), which looks the same at Settings.DPI and keeps files small.
//
// Inputs are validated: mismatched lengths, NaN or infinite values, empty series, duplicate or
// missing names, intervals that do not contain their value and non-positive values on a log axis
// are errors naming the series and the point, never panics; so is a title or axis label with a
// combining mark (the hat of p̂), which gonum/plot would draw beside its letter. Labels, legends and titles too large
// for the figure are a *LayoutError giving the size they need; Fit catches it and draws the
// figure another way (the legend placed the other way, or the figure enlarged), with a note
// saying so, so that a finished experiment never ends without its figures.
//
// The tests compare figures with golden images in testdata with a tolerance, in gonum/plot's
// way (cmpimg.EqualApprox); after an intended change, regenerate them with
//
//	PLOTS_REGEN_GOLDEN=1 go test ./plots/ -run Golden
//
// and look at every testdata/*_golden.png before committing them.
package plots // import "github.com/samplingbias/workbench/plots"
