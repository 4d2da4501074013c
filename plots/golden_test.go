package plots

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/cmpimg"
)

// Golden-image tests, in gonum/plot's way: each figure is rendered to PNG and compared with
// testdata/<name>_golden.png by cmpimg.EqualApprox with goldenDelta. To regenerate the golden
// files after an intended change, run
//
//	PLOTS_REGEN_GOLDEN=1 go test ./plots/ -run Golden
//
// and look at every testdata/*_golden.png before committing them.
const regenEnv = "PLOTS_REGEN_GOLDEN"

// goldenSettings are the Settings of the golden images: the defaults at half the resolution,
// which keeps the test fast under -race and the files small while still checking the layout.
var goldenSettings = Settings{DPI: 150}

// goldenDelta is cmpimg's normalised tolerance: a pixel may differ by at most goldenDelta² of
// the largest YIQ colour distance, 1% for 0.1. That absorbs anti-aliasing differences between
// rasteriser builds, while any moved or recoloured element (a line, a letter, a bar) changes
// some pixels from background to ink, far more than 1%.
const goldenDelta = 0.1

// goldenFigures are the figures under golden test, one per use in the workbench.
var goldenFigures = []struct {
	name  string
	build func() (*plot.Plot, error)
}{
	{"recall_bars", func() (*plot.Plot, error) { return GroupedBars(recallBars(), Labels{Y: "Recall@10"}, goldenSettings) }},
	{"tv_lines", func() (*plot.Plot, error) {
		return Lines(tvSeries(), Labels{Title: "Streaming estimator, m = 1", X: "training step", Y: "TV distance"},
			LineOptions{}, goldenSettings)
	}},
	{"loss_log", func() (*plot.Plot, error) {
		return Lines(lossSeries(), Labels{X: "training step", Y: "training loss (nats)"}, LineOptions{LogY: true}, goldenSettings)
	}},
	{"recall_bars_right_data", func() (*plot.Plot, error) {
		return GroupedBars(recallNear1(), Labels{Y: "Recall@300", X: "popularity slice"},
			Settings{DPI: goldenSettings.DPI, Legend: LegendRight, YRange: YRangeData, Width: 5})
	}},
	{"tradeoff", func() (*plot.Plot, error) {
		return Tradeoff(tradeoffSeries(), Labels{X: "Tail Recall@10", Y: "Head Recall@10"}, goldenSettings)
	}},
	{"tradeoff_panels", func() (*plot.Plot, error) {
		series := tradeoffSeries()
		var panels []TradeoffPanel
		for i := range series {
			series[i].Tags, series[i].Arrows = nil, true
			series[i].XLo, series[i].XHi, series[i].YLo, series[i].YHi = nil, nil, nil, nil
			panels = append(panels, TradeoffPanel{Title: series[i].Name, Series: series[i : i+1]})
		}
		return TradeoffPanels(panels, Labels{X: "Tail Recall@10", Y: "Head Recall@10", Key: &Key{}}, Settings{DPI: goldenSettings.DPI, Width: 5})
	}},
	{"recall_bars_key", func() (*plot.Plot, error) {
		d, key := recallBarsByFactor()
		return GroupedBars(d, Labels{Y: "Recall@10", Key: key}, goldenSettings)
	}},
	{"forest", func() (*plot.Plot, error) {
		return Forest([]string{"head", "torso", "tail", "all"}, forestRows(), Labels{X: "Recall@10 difference (A − B)"}, goldenSettings)
	}},
	{"panels", func() (*plot.Plot, error) {
		return LinePanels(familyPanels(), Labels{X: "training step", Y: "training loss"}, LineOptions{}, Settings{DPI: goldenSettings.DPI, Width: 5})
	}},
	{"scatter_panels", func() (*plot.Plot, error) {
		sampled, corrected := agreementSeries()
		return ScatterPanels([]ScatterPanel{{Title: "Sampled HR@10", Series: sampled}, {Title: "Corrected Recall@10", Series: corrected, Identity: true}},
			Labels{X: "Full Recall@10", Y: "Sampled estimate"}, Settings{DPI: goldenSettings.DPI, Width: 5})
	}},
	{"reliability", func() (*plot.Plot, error) {
		return Reliability(reliabilitySeries(), Labels{X: "Bin's mean est. p", Y: "Bin's mean true p"}, "Pairs per run", goldenSettings)
	}},
	{"temperature_markers", func() (*plot.Plot, error) {
		return Lines(temperatureSeries(), Labels{X: "softmax temperature τ", Y: "Recall@50"},
			LineOptions{LogX: true, Markers: true}, Settings{DPI: goldenSettings.DPI, Font: "sans"})
	}},
}

// recallBarsByFactor is recallBars as a sampler × weighting grid: colour by weighting
// (importance, constant), hatching by sampler (in-batch, uniform), with a legend by factor, and
// two reference levels (the most-popular line missing on the tail).
func recallBarsByFactor() (BarData, *Key) {
	d := recallBars()
	for i := range d.Series {
		d.Series[i].Style = &Style{Color: i / 2, Shape: i % 2}
	}
	d.Refs = []BarRef{{Name: "most popular", Values: []float64{0.3, 0, math.NaN(), 0.1}}, {Name: "random", Values: []float64{0.01, 0.01, 0.01, 0.01}}}
	d.Interval = "95% CI across seeds"
	return d, &Key{
		Colors: []KeyEntry{{Name: "importance", Index: 0}, {Name: "constant", Index: 1}},
		Shapes: []KeyEntry{{Name: "in-batch", Index: 0}, {Name: "uniform", Index: 1}},
	}
}

// forestRows are three contrasts by slice: one interval excluding zero in every slice, one
// crossing it, one with a single seed (no interval) and no tail estimate.
func forestRows() []ForestRow {
	nan := math.NaN()
	return []ForestRow{
		{Label: "logQ − plain", Mean: []float64{-0.04, 0.05, 0.06, 0.02},
			Lo: []float64{-0.06, 0.03, 0.04, 0.01}, Hi: []float64{-0.02, 0.07, 0.08, 0.03}},
		{Label: "in-batch − uniform (importance)", Mean: []float64{0.01, -0.01, 0.0, 0.0},
			Lo: []float64{-0.02, -0.03, -0.01, -0.01}, Hi: []float64{0.04, 0.01, 0.01, 0.01}},
		{Label: "full − full at τ_LA = 1", Mean: []float64{0.03, 0.01, nan, 0.01},
			Lo: []float64{nan, nan, nan, nan}, Hi: []float64{nan, nan, nan, nan}},
	}
}

// recallBars is Recall@10 by popularity slice for four variants, with 95% intervals.
func recallBars() BarData {
	return BarData{
		Groups: []string{"head", "torso", "tail", "all"},
		Series: []BarSeries{
			{Name: "plain", Values: []float64{0.42, 0.21, 0.05, 0.24},
				Lo: []float64{0.40, 0.19, 0.04, 0.23}, Hi: []float64{0.44, 0.23, 0.06, 0.25}},
			{Name: "logQ", Values: []float64{0.38, 0.26, 0.11, 0.26},
				Lo: []float64{0.36, 0.24, 0.09, 0.25}, Hi: []float64{0.40, 0.28, 0.13, 0.27}},
			{Name: "logQ + importance", Values: []float64{0.36, 0.27, 0.14, 0.27},
				Lo: []float64{0.33, 0.25, 0.12, 0.26}, Hi: []float64{0.39, 0.29, 0.16, 0.28}},
			{Name: "full softmax", Values: []float64{0.40, 0.29, 0.15, 0.29},
				Lo: []float64{0.39, 0.28, 0.14, 0.285}, Hi: []float64{0.41, 0.30, 0.16, 0.295}},
		},
	}
}

// recallNear1 is recallBars moved to values near 0.9, like Recall@300, whose differences an
// axis from 0 flattens.
func recallNear1() BarData {
	d := recallBars()
	for i := range d.Series {
		for _, vs := range [][]float64{d.Series[i].Values, d.Series[i].Lo, d.Series[i].Hi} {
			for g := range vs {
				vs[g] = 0.8 + vs[g]/4
			}
		}
	}
	return d
}

// tradeoffSeries is tail against head Recall@10 of three variants as trained and under post-hoc
// logit adjustment of strength τ = 0.5, 1, 2, which trades head for tail, with 95% intervals;
// the first variant has no intervals (a single seed).
func tradeoffSeries() []TradeoffSeries {
	pts := []struct {
		name string
		x, y []float64
	}{
		{"plain", []float64{0.068, 0.071, 0.072, 0.070}, []float64{0.008, 0.005, 0.003, 0.002}},
		{"logQ", []float64{0.047, 0.058, 0.066, 0.070}, []float64{0.112, 0.095, 0.070, 0.040}},
		{"full softmax", []float64{0.024, 0.040, 0.055, 0.066}, []float64{0.253, 0.205, 0.140, 0.080}},
	}
	var out []TradeoffSeries
	for i, p := range pts {
		ts := TradeoffSeries{Name: p.name, X: p.x, Y: p.y, Tags: []string{"", "", "", "τ=2"}}
		if i > 0 {
			for j := range p.x {
				ts.XLo, ts.XHi = append(ts.XLo, p.x[j]-0.004), append(ts.XHi, p.x[j]+0.004)
				ts.YLo, ts.YHi = append(ts.YLo, p.y[j]-0.01), append(ts.YHi, p.y[j]+0.012)
			}
		}
		out = append(out, ts)
	}
	return out
}

// agreementSeries are four cells' full Recall@10 against their sampled HR@10 over 101
// candidates and its corrected estimate (Krichene & Rendle 2020), one point each with intervals
// both ways: the sampled HR@10 orders cells b and c the other way round.
func agreementSeries() (sampled, corrected []TradeoffSeries) {
	full := []float64{0.034, 0.088, 0.115, 0.119}
	hr := []float64{0.41, 0.63, 0.61, 0.66}
	est := []float64{0.041, 0.081, 0.109, 0.124}
	for i, name := range []string{"plain", "logQ inclusion", "logQ", "full softmax"} {
		x := []float64{full[i]}
		xlo, xhi := []float64{full[i] - 0.004}, []float64{full[i] + 0.004}
		sampled = append(sampled, TradeoffSeries{Name: name, X: x, Y: []float64{hr[i]}, XLo: xlo, XHi: xhi,
			YLo: []float64{hr[i] - 0.02}, YHi: []float64{hr[i] + 0.02}})
		corrected = append(corrected, TradeoffSeries{Name: name, X: x, Y: []float64{est[i]}, XLo: xlo, XHi: xhi,
			YLo: []float64{est[i] - 0.006}, YHi: []float64{est[i] + 0.006}})
	}
	return sampled, corrected
}

// reliabilitySeries are the reliability curves of a calibrated model (its bins on the
// diagonal, up to noise) and of an overconfident one (σ(s) ≈ p/α, above the diagonal by 1/α = 30
// on its rare pairs, saturating near 1), over bins a quarter decade wide, with the pairs per bin.
func reliabilitySeries() []ReliabilitySeries {
	var out []ReliabilitySeries
	for i, name := range []string{"softmax", "BCE, k = 32"} {
		rs := ReliabilitySeries{Name: name}
		for b := range 20 {
			p := math.Pow(10, -5+float64(b)/4)
			pred := p * (1 + 0.1*math.Sin(float64(b)))
			if i == 1 {
				pred = p / (p + (1-p)/30)
			}
			if len(rs.Predicted) > 0 && pred <= rs.Predicted[len(rs.Predicted)-1] {
				continue
			}
			rs.Predicted = append(rs.Predicted, pred)
			rs.True = append(rs.True, p)
			rs.Pairs = append(rs.Pairs, math.Round(2e5*math.Exp(-math.Pow(float64(b)-6, 2)/8))+1)
		}
		out = append(out, rs)
	}
	return out
}

// tvSeries mimics Yi et al. figure 3: TV distance against step for three learning rates α,
// with a distribution switch at step 10000, as mean and band over seeds.
func tvSeries() []LineSeries {
	var out []LineSeries
	for i, alpha := range []float64{0.01, 0.05, 0.1} {
		rng := rand.New(rand.NewPCG(7, uint64(i)))
		ls := LineSeries{Name: "α = " + strconv.FormatFloat(alpha, 'g', -1, 64)}
		for step := 0.0; step < 20000; step += 100 {
			t := math.Mod(step, 10000)
			floor := 0.05 + 0.6*alpha
			y := floor + (0.9-floor)*math.Exp(-alpha*t/40) + 0.01*rng.NormFloat64()
			hw := 0.02 + 0.1*alpha
			ls.X = append(ls.X, step)
			ls.Y = append(ls.Y, y)
			ls.Lo = append(ls.Lo, y-hw)
			ls.Hi = append(ls.Hi, y+hw)
		}
		out = append(out, ls)
	}
	return out
}

// lossSeries is a training-loss curve per variant, decaying over two orders of magnitude.
func lossSeries() []LineSeries {
	var out []LineSeries
	for i, name := range []string{"plain", "logQ", "logQ + tail weights", "full softmax"} {
		ls := LineSeries{Name: name}
		for step := 50.0; step <= 5000; step += 50 {
			ls.X = append(ls.X, step)
			ls.Y = append(ls.Y, (0.05+0.02*float64(i))+7*math.Exp(-step/(600+150*float64(i))))
		}
		out = append(out, ls)
	}
	return out
}

// temperatureSeries is Recall@50 against a swept temperature, with bands, for two variants.
func temperatureSeries() []LineSeries {
	taus := []float64{0.02, 0.05, 0.07, 0.1, 0.2, 0.5}
	var out []LineSeries
	for i, name := range []string{"plain", "logQ"} {
		ls := LineSeries{Name: name, X: taus}
		for _, tau := range taus {
			d := math.Log(tau / 0.07)
			y := 0.55 + 0.05*float64(i) - 0.08*d*d
			ls.Y = append(ls.Y, y)
			ls.Lo = append(ls.Lo, y-0.02)
			ls.Hi = append(ls.Hi, y+0.02)
		}
		out = append(out, ls)
	}
	return out
}

func TestGolden(t *testing.T) {
	regen := os.Getenv(regenEnv) == "1"
	for _, fig := range goldenFigures {
		t.Run(fig.name, func(t *testing.T) {
			t.Parallel()
			p, err := fig.build()
			if err != nil {
				t.Fatal(err)
			}
			if regen {
				if _, err := Save(p, filepath.Join("testdata", fig.name+"_golden"), goldenSettings); err != nil {
					t.Fatal(err)
				}
				t.Logf("regenerated testdata/%s_golden.png", fig.name)
				return
			}
			got := renderPNG(t, p, goldenSettings)
			want, err := os.ReadFile(filepath.Join("testdata", fig.name+"_golden.png"))
			if err != nil {
				t.Fatalf("%v (regenerate with %s=1)", err, regenEnv)
			}
			ok, err := cmpimg.EqualApprox("png", got, want, goldenDelta)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Errorf("figure differs from testdata/%s_golden.png beyond delta %v; %s", fig.name, goldenDelta,
					keepFailure(t, fig.name, got, want))
			}
		})
	}
}

// TestGoldenDetectsChange checks that goldenDelta is tight enough to catch a small change of
// the data: one bar 10% lower.
func TestGoldenDetectsChange(t *testing.T) {
	d := recallBars()
	d.Series[1].Values[2] *= 0.9
	d.Series[1].Lo[2] *= 0.9
	p, err := GroupedBars(d, Labels{Y: "Recall@10"}, goldenSettings)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "recall_bars_golden.png"))
	if err != nil {
		t.Fatal(err)
	}
	ok, err := cmpimg.EqualApprox("png", renderPNG(t, p, goldenSettings), want, goldenDelta)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Error("a bar 10% lower still matches the golden image")
	}
}

// renderPNG saves p as PNG in a temporary directory and returns the file's bytes.
func renderPNG(t *testing.T, p *plot.Plot, s Settings) []byte {
	t.Helper()
	s.Formats = []Format{"png"}
	paths, err := Save(p, filepath.Join(t.TempDir(), "fig"), s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keepFailure writes the rendered figure and its difference from the golden image to the
// system's temporary directory, for a person to look at, and says where.
func keepFailure(t *testing.T, name string, got, want []byte) string {
	gi, err1 := png.Decode(bytes.NewReader(got))
	wi, err2 := png.Decode(bytes.NewReader(want))
	if err1 != nil || err2 != nil {
		return "cannot decode the images to keep them"
	}
	diff := image.NewRGBA64(gi.Bounds().Union(wi.Bounds()))
	cmpimg.Diff(diff, gi, wi)
	var buf bytes.Buffer
	if err := png.Encode(&buf, diff); err != nil {
		return err.Error()
	}
	gotPath := filepath.Join(os.TempDir(), "plots_"+name+"_got.png")
	diffPath := filepath.Join(os.TempDir(), "plots_"+name+"_diff.png")
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		return err.Error()
	}
	if err := os.WriteFile(diffPath, buf.Bytes(), 0o644); err != nil {
		return err.Error()
	}
	return "see " + gotPath + " and " + diffPath
}

// familyPanels are training-loss curves of two loss families on different scales: two softmax
// variants near log(1024) ≈ 7 and a logistic one near 60, each in its own panel.
func familyPanels() []LinePanel {
	curve := func(name string, style int, start, end float64) LineSeries {
		ls := LineSeries{Name: name, Style: &Style{Color: style, Shape: style}}
		for i := range 40 {
			ls.X = append(ls.X, float64(10*(i+1)))
			ls.Y = append(ls.Y, end+(start-end)*math.Exp(-float64(i)/8))
		}
		return ls
	}
	return []LinePanel{
		{Title: "softmax", Series: []LineSeries{curve("plain", 0, 7, 4.5), curve("logQ", 1, 7.5, 5.2)}},
		{Title: "logistic", Series: []LineSeries{curve("nce", 2, 90, 40)}},
	}
}
