package samplers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/internal/prob"

	. "github.com/samplingbias/workbench/samplers"
)

// wrData is a corpus of 8 items with skewed counts (one without interactions), on which a draw
// of 3 without replacement takes the head early: its inclusion probabilities are far from the
// weights' 3·w/Σw (the first item's exceeds 1).
func wrData() *Data {
	counts := []int64{400, 120, 60, 30, 12, 6, 2, 0}
	d := &Data{Items: len(counts), Batch: 1, Counts: counts}
	for _, c := range counts {
		d.N += int(c)
	}
	return d
}

// inclusionFrequencies draws n steps of smp (one positive, item 0) and returns each item's
// frequency among the drawn columns, failing on a step that draws an item twice.
func inclusionFrequencies(t *testing.T, smp Sampler, d *Data, n int, seed uint64) []float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	sh := smp.Shape()
	rows := make([]int32, sh.ItemRows(1, d.Items))
	pos := []int32{0}
	freq := make([]float64, d.Items)
	seen := make([]int, d.Items)
	for step := 1; step <= n; step++ {
		smp.Draw(rng, d, pos, rows)
		for _, item := range rows[1:] {
			if seen[item] == step {
				t.Fatalf("step %d drew item %d twice: %v", step, item, rows[1:])
			}
			seen[item] = step
			freq[item]++
		}
	}
	for j := range freq {
		freq[j] /= float64(n)
	}
	return freq
}

// within3SE returns the first item whose frequency over n steps is more than three standard
// errors √(π(1 − π)/n) from want (or a frequency where want is 0), as a message, or "".
func within3SE(freq, want []float64, n int) string {
	for j, p := range want {
		se := math.Sqrt(p * (1 - p) / float64(n))
		if math.Abs(freq[j]-p) > 3*se || (p <= 0 && freq[j] > 0) {
			return fmt.Sprintf("item %d: frequency %.5f, declared %.5f (3 standard errors %.5f)", j, freq[j], p, 3*se)
		}
	}
	return ""
}

// TestWithoutReplacementInclusion: the frequencies with which the samplers without replacement
// draw each item over 10⁶ steps are within 3 standard errors of the exact inclusion
// probabilities they declare (prob.SuccessiveInclusion of count^β; m/M uniformly), each item at
// most once per step; the naive weights m·w_j/Σw, which some code declares instead, fail the same
// check; and the declarations are p = π and q = π/m for every column and positive.
func TestWithoutReplacementInclusion(t *testing.T) {
	const n, m = 1_000_000, 3
	d := wrData()
	for _, tc := range []struct {
		s Settings
		w func(count int64) float64
	}{
		{Settings{Kind: KindPopularityWithoutReplacement, Negatives: m, Beta: new(1.0)}, func(c int64) float64 { return float64(c) }},
		{Settings{Kind: KindPopularityWithoutReplacement, Negatives: m, Beta: new(0.5)}, func(c int64) float64 { return math.Sqrt(float64(c)) }},
		{Settings{Kind: KindUniformWithoutReplacement, Negatives: m}, func(int64) float64 { return 1 }},
	} {
		t.Run(wrName(tc.s), func(t *testing.T) {
			smp, err := New(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			w := make([]float64, d.Items)
			sum := 0.0
			for j, c := range d.Counts {
				w[j] = tc.w(c)
				sum += w[j]
			}
			pi, err := prob.SuccessiveInclusion(w, m)
			if err != nil {
				t.Fatal(err)
			}
			freq := inclusionFrequencies(t, smp, d, n, 5)
			if msg := within3SE(freq, pi, n); msg != "" {
				t.Errorf("against the exact inclusion probabilities: %s", msg)
			}
			naive := make([]float64, d.Items)
			for j := range naive {
				naive[j] = math.Min(m*w[j]/sum, 1)
			}
			if tc.s.Kind == KindPopularityWithoutReplacement && within3SE(freq, naive, n) == "" {
				t.Errorf("the naive weights m·w/Σw = %.4f pass the check that the draws' frequencies %.4f should fail", naive, freq)
			}
			checkDeclaredPi(t, smp, d, pi, m)
		})
	}
}

// checkDeclaredPi fails unless smp declares log p = log π and log q = log(π/m) for each column
// and each row's positive.
func checkDeclaredPi(t *testing.T, smp Sampler, d *Data, pi []float64, m int) {
	t.Helper()
	sh := smp.Shape()
	pos := []int32{1, 4}
	rows := make([]int32, sh.ItemRows(len(pos), d.Items))
	smp.Draw(rand.New(rand.NewPCG(1, 1)), d, pos, rows)
	c := newColumnsFor(smp, len(pos), d.Items)
	if err := smp.Declare(d, pos, rows, nil, c); err != nil {
		t.Fatal(err)
	}
	item := func(j int) int32 {
		if c.ColItem[j] < 0 {
			return pos[0]
		}
		return int32(c.ColItem[j])
	}
	for j := range c.ColItem {
		it := item(j)
		if math.Abs(colP(c)[j]-math.Log(pi[it])) > 1e-12 || math.Abs(colQ(c)[j]-math.Log(pi[it]/float64(m))) > 1e-12 {
			t.Errorf("column %d (item %d): log p %v, log q %v; want log π = %v, log(π/m) = %v", j, it, colP(c)[j], colQ(c)[j],
				math.Log(pi[it]), math.Log(pi[it]/float64(m)))
		}
	}
	for i, it := range pos {
		if math.Abs(posP(c)[i]-math.Log(pi[it])) > 1e-12 || math.Abs(posQ(c)[i]-math.Log(pi[it]/float64(m))) > 1e-12 {
			t.Errorf("row %d's positive (item %d): log p %v, log q %v", i, it, posP(c)[i], posQ(c)[i])
		}
	}
}

// TestWithoutReplacementTooMany: a draw of more items than the corpus holds, or than have a
// positive weight count^β, is one error naming sampler.negatives, from Check and from Declare.
func TestWithoutReplacementTooMany(t *testing.T) {
	d := wrData()
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kind: KindUniformWithoutReplacement, Negatives: 9}, "negatives: 9 distinct items drawn without replacement from a corpus of 8 items"},
		{Settings{Kind: KindPopularityWithoutReplacement, Negatives: 8}, "negatives: 8 distinct items drawn without replacement, and 7 of the corpus's 8 items have a positive weight"},
	} {
		smp, err := New(tt.s)
		if err != nil {
			t.Fatal(err)
		}
		if err := smp.(Checker).Check(d); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: Check = %v, want %q", settingsName(tt.s), err, tt.want)
		}
		rows := make([]int32, smp.Shape().ItemRows(1, d.Items))
		smp.Draw(rand.New(rand.NewPCG(1, 1)), d, []int32{0}, rows)
		if err := smp.Declare(d, []int32{0}, rows, nil, newColumnsFor(smp, 1, d.Items)); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: Declare = %v, want %q", settingsName(tt.s), err, tt.want)
		}
	}
	// At β = 0 every item weighs 1, the one without interactions too: 8 of 8 can be drawn.
	smp, err := New(Settings{Kind: KindPopularityWithoutReplacement, Negatives: 8, Beta: new(0.0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := smp.(Checker).Check(d); err != nil {
		t.Errorf("β = 0, 8 of 8 items: %v", err)
	}
}

// TestWithoutReplacementItemLaw: as a mixture's component, a sampler without replacement gives
// its law of any item (ItemLaw), the π its own columns declare.
func TestWithoutReplacementItemLaw(t *testing.T) {
	d := wrData()
	smp := must(New(Settings{Kind: KindPopularityWithoutReplacement, Negatives: 3, Beta: new(1.0)})).(ItemLaw)
	items := []int32{0, 3, 6}
	lq, lp := make([]float64, 3), make([]float64, 3)
	smp.ItemLaw(d, items, lq, lp)
	w := make([]float64, d.Items)
	for j, c := range d.Counts {
		w[j] = float64(c)
	}
	pi, _ := prob.SuccessiveInclusion(w, 3)
	for k, it := range items {
		if math.Abs(lp[k]-math.Log(pi[it])) > 1e-12 || math.Abs(lq[k]-math.Log(pi[it]/3)) > 1e-12 {
			t.Errorf("item %d: log q %v, log p %v; want log(π/3) %v, log π %v", it, lq[k], lp[k], math.Log(pi[it]/3), math.Log(pi[it]))
		}
	}
	if _, err := New(Settings{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch},
		{Kind: KindPopularityWithoutReplacement, Negatives: 3}}}); err != nil {
		t.Errorf("a mixture of in_batch and popularity_without_replacement: %v", err)
	}
}

// wrName names a case by its kind, negatives and β.
func wrName(s Settings) string {
	if s.Beta != nil {
		return fmt.Sprintf("%s/beta=%v", settingsName(s), *s.Beta)
	}
	return settingsName(s)
}
