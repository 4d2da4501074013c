package samplers

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestInBatchUniqueLaw: given a batch with D = 5 distinct items, in_batch_unique with k = 2 takes
// each of them with frequency k/D = 0.4 over 20000 steps (within 5 standard errors,
// √(0.4·0.6/20000) = 0.0035), never twice in a step and never an item outside the batch, and
// declares p = p̂·k/D and q = p/k for each column.
func TestInBatchUniqueLaw(t *testing.T) {
	const steps, k = 20000, 2
	d := auditData(8)
	pos := []int32{3, 3, 0, 7, 3, 11, 0, 4} // distinct: 3, 0, 7, 11, 4
	smp, err := New(Settings{Kind: KindInBatchUnique, Negatives: k})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]int32, len(pos)+k)
	c := newColumnsFor(smp.Shape(), len(pos), d.Items)
	law := exactLaw(d, rows)
	count := map[int32]int{}
	for range steps {
		smp.Draw(rng, d, pos, rows)
		if rows[8] == rows[9] {
			t.Fatalf("the same item twice: %v", rows[8:])
		}
		for _, item := range rows[8:] {
			count[item]++
		}
		if err := smp.Declare(d, pos, rows, law, c); err != nil {
			t.Fatal(err)
		}
		for j := 1; j <= k; j++ {
			_, p, _, _ := law(7 + j)
			if want := p * k / 5; math.Abs(math.Exp(colP(c)[j])/want-1) > 1e-12 || math.Abs(math.Exp(colQ(c)[j])/(want/k)-1) > 1e-12 {
				t.Fatalf("column %d: p %v q %v, want %v and %v", j, math.Exp(colP(c)[j]), math.Exp(colQ(c)[j]), want, want/k)
			}
		}
	}
	if len(count) != 5 {
		t.Errorf("drew %d distinct items, want the batch's 5: %v", len(count), count)
	}
	for item, n := range count {
		if f, tol := float64(n)/steps, 5*math.Sqrt(0.4*0.6/steps); math.Abs(f-0.4) > tol {
			t.Errorf("item %d: frequency %.4f, want 0.4 ± %.4f", item, f, tol)
		}
	}
	short, err := New(Settings{Kind: KindInBatchUnique, Negatives: 6})
	if err != nil {
		t.Fatal(err)
	}
	rows = make([]int32, len(pos)+6)
	c = newColumnsFor(short.Shape(), len(pos), d.Items)
	short.Draw(rng, d, pos, rows)
	want := "the batch has 5 distinct items, fewer than negatives = 6"
	if err := short.Declare(d, pos, rows, exactLaw(d, rows), c); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}
