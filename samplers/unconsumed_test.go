package samplers_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// unconsumedData is samplerstest.SkewedData's corpus of 20 items with training items for three
// queries (the third has every item but one) and the rows' queries.
func unconsumedData(b int, queries ...int32) *Data {
	d := samplerstest.SkewedData(b)
	d.Seen = [][]int32{{0, 1, 2, 5, 7, 11}, {3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19}}
	d.Queries = make([]int32, b)
	for i := range d.Queries {
		d.Queries[i] = queries[i%len(queries)]
	}
	return d
}

// TestUnconsumedAudit: with every row of one query, unconsumed's declared p and copies m·q, with
// q = 1/(M − |S|), match the draws over 4000 steps (samplerstest.Audit), and no step draws one of the query's
// training items.
func TestUnconsumedAudit(t *testing.T) {
	for _, q := range []int32{0, 1} {
		d := unconsumedData(8, q)
		smp, err := New(Settings{Kind: KindUnconsumed, Negatives: 5})
		if err != nil {
			t.Fatal(err)
		}
		if err := samplerstest.Audit(smp, d, 4000, 3); err != nil {
			t.Errorf("query %d: %v", q, err)
		}
		if err := samplerstest.Audit(samplerstest.Overstated(smp, 1.1), d, 4000, 3); err == nil {
			t.Errorf("query %d: a declaration 10%% too large passed the audit", q)
		}
	}
}

// TestUnconsumedLaw: over rows of three queries, unconsumed never draws a query's training item,
// draws each other item with frequency 1/(M − |S|) per draw (within 5 standard errors over 20,000
// steps), declares that q and p = 1 − (1 − q)^m for each row's columns and positive, and draws the
// single item left to the query that consumed all others.
func TestUnconsumedLaw(t *testing.T) {
	const b, m, steps = 3, 4, 20000
	d := unconsumedData(b, 0, 1, 2)
	smp := must(New(Settings{Kind: KindUnconsumed, Negatives: m}))
	sh := smp.Shape()
	rows := make([]int32, sh.ItemRows(b, d.Items))
	pos := []int32{0, 3, 17}
	rng := rand.New(rand.NewPCG(4, 4))
	counts := make([][]float64, b)
	for i := range counts {
		counts[i] = make([]float64, d.Items)
	}
	for range steps {
		smp.Draw(rng, d, pos, rows)
		for i := range b {
			for _, item := range rows[b+i*m : b+(i+1)*m] {
				if slices.Contains(d.Seen[d.Queries[i]], item) {
					t.Fatalf("row %d (query %d) drew item %d, one of its training items", i, d.Queries[i], item)
				}
				counts[i][item]++
			}
		}
	}
	for i := range b {
		free := d.Items - len(d.Seen[d.Queries[i]])
		q := 1 / float64(free)
		n := float64(steps * m)
		for j, c := range counts[i] {
			if slices.Contains(d.Seen[d.Queries[i]], int32(j)) {
				continue
			}
			if se := math.Sqrt(q * (1 - q) / n); math.Abs(c/n-q) > 5*se {
				t.Errorf("row %d, item %d: frequency %.5f per draw, want 1/(M − |S|) = %.5f (5 standard errors %.5f)", i, j, c/n, q, 5*se)
			}
		}
	}
	c := newColumnsFor(smp, b, d.Items)
	if err := smp.Declare(d, pos, rows, nil, c); err != nil {
		t.Fatal(err)
	}
	cols := len(c.ColItem) / b
	for i := range b {
		q := 1 / float64(d.Items-len(d.Seen[d.Queries[i]]))
		lq, lp := math.Log(q), math.Log(1-math.Pow(1-q, m))
		if math.Abs(posQ(c)[i]-lq) > 1e-12 || math.Abs(posP(c)[i]-lp) > 1e-12 {
			t.Errorf("row %d's positive: log q %v, log p %v; want %v, %v", i, posQ(c)[i], posP(c)[i], lq, lp)
		}
		for j := range cols {
			k := i*cols + j
			if math.Abs(colQ(c)[k]-lq) > 1e-12 || math.Abs(colP(c)[k]-lp) > 1e-12 {
				t.Errorf("row %d, column %d: log q %v, log p %v; want %v, %v", i, j, colQ(c)[k], colP(c)[k], lq, lp)
			}
		}
	}
	if counts[2][17] != steps*m {
		t.Errorf("query 2 has item 17 alone to draw, drawn %v of %d times", counts[2][17], steps*m)
	}
}

// TestUnconsumedExhausted: a query whose training items are the whole corpus is one error naming
// the query, from Check before training and from Declare at a step.
func TestUnconsumedExhausted(t *testing.T) {
	d := unconsumedData(2, 0, 1)
	d.Seen[1] = []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	smp := must(New(Settings{Kind: KindUnconsumed, Negatives: 2}))
	want := "kind: sampler unconsumed: query 1 has all 20 items of the corpus among its training items"
	if err := smp.(Checker).Check(d); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Check = %v, want %q", err, want)
	}
	rows := make([]int32, smp.Shape().ItemRows(2, d.Items))
	smp.Draw(rand.New(rand.NewPCG(1, 1)), d, []int32{0, 1}, rows)
	if err := smp.Declare(d, []int32{0, 1}, rows, nil, newColumnsFor(smp, 2, d.Items)); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Declare = %v, want %q", err, want)
	}
}
