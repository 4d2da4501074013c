package plots_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/plots"
)

// Recall@10 by popularity slice, one bar per variant with its 95% confidence interval across
// seeds, from long-format summary rows; the figure is written as PNG and PDF.
func ExampleGroupedBars() {
	dir, err := os.MkdirTemp("", "plots-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	// One row per (variant, slice): mean and 95% interval across seeds.
	rows := []plots.BarPoint{
		{Series: "plain", Group: "head", Value: 0.42, Lo: 0.40, Hi: 0.44},
		{Series: "plain", Group: "torso", Value: 0.21, Lo: 0.19, Hi: 0.23},
		{Series: "plain", Group: "tail", Value: 0.05, Lo: 0.04, Hi: 0.06},
		{Series: "logQ", Group: "head", Value: 0.38, Lo: 0.36, Hi: 0.40},
		{Series: "logQ", Group: "torso", Value: 0.26, Lo: 0.24, Hi: 0.28},
		{Series: "logQ", Group: "tail", Value: 0.11, Lo: 0.09, Hi: 0.13},
	}
	d, err := plots.NewBarData([]string{"head", "torso", "tail"}, rows)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := plots.Settings{Formats: []plots.Format{"png", "pdf"}} // the [plots] section; zero fields take defaults
	p, err := plots.GroupedBars(d, plots.Labels{Y: "Recall@10"}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	paths, err := plots.Save(p, filepath.Join(dir, "recall_at_10"), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, path := range paths {
		fmt.Println(filepath.Base(path))
	}
	// Output:
	// recall_at_10.png
	// recall_at_10.pdf
}

// The estimator's total-variation error against the training step, one line per learning
// rate α with its band across seeds.
func ExampleLines() {
	dir, err := os.MkdirTemp("", "plots-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	var series []plots.LineSeries
	for _, alpha := range []float64{0.01, 0.1} {
		ls := plots.LineSeries{Name: fmt.Sprintf("α = %g", alpha)}
		for step := 0.0; step <= 1000; step += 10 {
			tv := 0.1 + 0.8*math.Exp(-alpha*step) // stands for the mean over seeds
			ls.X = append(ls.X, step)
			ls.Y = append(ls.Y, tv)
			ls.Lo = append(ls.Lo, tv-0.02)
			ls.Hi = append(ls.Hi, tv+0.02)
		}
		series = append(series, ls)
	}
	var s plots.Settings // defaults: 3.5 × 2.6 in, 300 dpi, 8 pt, PNG
	p, err := plots.Lines(series, plots.Labels{Title: "Streaming estimator", X: "training step", Y: "TV distance"},
		plots.LineOptions{}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	paths, err := plots.Save(p, filepath.Join(dir, "tv_by_alpha"), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(paths[0]))
	// Output:
	// tv_by_alpha.png
}

// Head against tail Recall@10 of sixteen variants, each as trained and under post-hoc logit
// adjustment of strength τ = 1 and 2, built through Fit: their legend fits neither above nor
// beside the plot of a column-wide figure, so Fit draws the figure a little taller and says so;
// the figure is saved with the Settings Fit used.
func ExampleFit() {
	dir, err := os.MkdirTemp("", "plots-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	var series []plots.TradeoffSeries
	for i := range 16 {
		x0, y0 := 0.02+0.005*float64(i), 0.25-0.015*float64(i)
		series = append(series, plots.TradeoffSeries{
			Name: fmt.Sprintf("variant %d", i),
			X:    []float64{x0, x0 + 0.01, x0 + 0.015}, // tail Recall@10 at τ = 0, 1, 2
			Y:    []float64{y0, y0 - 0.05, y0 - 0.1},   // head Recall@10
			Tags: []string{"", "", "τ=2"},
		})
	}
	build := func(s plots.Settings) (*plot.Plot, error) {
		return plots.Tradeoff(series, plots.Labels{X: "Tail Recall@10", Y: "Head Recall@10"}, s)
	}
	p, used, note, err := plots.Fit(build, plots.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(note)
	paths, err := plots.Save(p, filepath.Join(dir, "tradeoff_at_10"), used)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(paths[0]), used.Width, "×", used.Height, "in, legend", used.Legend)
	// Output:
	// the legend's 3×6 grid needs 0.92 in, more than 35% of the figure's height (2.60 in); drawn at 3.5 × 2.7 in instead of 3.5 × 2.6 in (set plots.width and plots.height to choose)
	// tradeoff_at_10.png 3.5 × 2.7 in, legend top
}

// Training-loss curves of two loss families, whose scales differ, one panel each with its own
// y axis and one legend for the figure.
func ExampleLinePanels() {
	dir, err := os.MkdirTemp("", "plots-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	curve := func(name string, start, end float64) plots.LineSeries {
		ls := plots.LineSeries{Name: name}
		for step := 10; step <= 300; step += 10 {
			ls.X = append(ls.X, float64(step))
			ls.Y = append(ls.Y, end+(start-end)*math.Exp(-float64(step)/60))
		}
		return ls
	}
	panels := []plots.LinePanel{
		{Title: "softmax", Series: []plots.LineSeries{curve("plain", 7, 4.5), curve("logQ", 7.5, 5.2)}},
		// A series' style is by its position in its panel: give nce the third one.
		{Title: "logistic", Series: []plots.LineSeries{func() plots.LineSeries {
			ls := curve("nce", 90, 40)
			ls.Style = &plots.Style{Color: 2, Shape: 2}
			return ls
		}()}},
	}
	s := plots.Settings{Width: 5}
	p, err := plots.LinePanels(panels, plots.Labels{X: "Training step", Y: "Training loss"}, plots.LineOptions{}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	paths, err := plots.Save(p, filepath.Join(dir, "loss_curves"), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, path := range paths {
		fmt.Println(filepath.Base(path))
	}
	// Output:
	// loss_curves.png
}
