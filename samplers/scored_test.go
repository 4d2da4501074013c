package samplers

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/candidates"
)

// plantedTowers are towers whose scores are a planted matrix: query q's embedding is row q of
// scores (over the M items) and item j's the j-th unit vector, so that ⟨u_q, v_j⟩ = scores[q][j].
type plantedTowers struct {
	scores [][]float64
	tau    float64
	q, v   []float32
}

func (p *plantedTowers) Dim() int             { return len(p.scores[0]) }
func (p *plantedTowers) Temperature() float64 { return p.tau }
func (p *plantedTowers) Queries(ids []int32) ([]float32, error) {
	d := p.Dim()
	p.q = make([]float32, len(ids)*d)
	for r, id := range ids {
		for j, s := range p.scores[id] {
			p.q[r*d+j] = float32(s)
		}
	}
	return p.q, nil
}
func (p *plantedTowers) Items(ids []int32) ([]float32, error) {
	d := p.Dim()
	p.v = make([]float32, len(ids)*d)
	for r, id := range ids {
		p.v[r*d+int(id)] = 1
	}
	return p.v, nil
}

// plantedData is a corpus of m items whose queries 0..b−1 score the items by a random planted
// matrix of float32 values (so that the towers' scores are exact), query i on row i.
func plantedData(b, m int, seed uint64) (*Data, *plantedTowers) {
	rng := rand.New(rand.NewPCG(seed, 9))
	scores := make([][]float64, b)
	for i := range scores {
		scores[i] = make([]float64, m)
		for j := range scores[i] {
			scores[i][j] = float64(float32(rng.Float64()*2 - 1))
		}
	}
	tw := &plantedTowers{scores: scores, tau: 0.1}
	d := &Data{Items: m, Batch: b, Counts: make([]int64, m), Queries: make([]int32, b), Towers: tw}
	for j := range d.Counts {
		d.Counts[j] = 1
		d.N++
	}
	for i := range d.Queries {
		d.Queries[i] = int32(i)
	}
	return d, tw
}

// topByScore is the brute-force top k of candidates by descending score (ties: the order of the
// candidates), then copies of fill up to k.
func topByScore(cands []int32, score func(int32) float64, k int, fill int32) []int32 {
	c := slices.Clone(cands)
	slices.SortStableFunc(c, func(a, b int32) int { return cmp.Compare(score(b), score(a)) })
	c = c[:min(k, len(c))]
	for len(c) < k {
		c = append(c, fill)
	}
	return c
}

// TestHardTopK: on a planted score matrix, hard gives each row exactly the k highest-scoring
// items of its pool, highest first: the batch's distinct positives other than the row's own
// (pool in_batch), or, with a uniform pool of the whole corpus, every item but the positive;
// with false_negative_margin, the top k of those scoring at most the guard (margin·s⁺ for a
// positive s⁺, s⁺ − (1 − margin)|s⁺| for a negative one), copies of the positive filling the
// columns a short row lacks; and it declares the columns' items and no law.
func TestHardTopK(t *testing.T) {
	const b, m, k = 6, 30, 3
	d, tw := plantedData(b, m, 1)
	pos := []int32{4, 9, 4, 17, 22, 9} // duplicates: the pool is the 4 distinct items
	// Row 0's positive scores below every other candidate of its pool, row 1's above them.
	tw.scores[0][4] = -0.96875
	tw.scores[1][9] = 0.9990234375
	tw.scores[3][17] = -0.1875
	for _, tc := range []struct {
		name   string
		s      Settings
		margin float64
		pool   func(i int) []int32
	}{
		{"in_batch", Settings{Kind: KindHard, Negatives: k}, 0, func(i int) []int32 {
			return slices.DeleteFunc([]int32{4, 9, 17, 22}, func(x int32) bool { return x == pos[i] })
		}},
		{"in_batch/margin", Settings{Kind: KindHard, Negatives: k, FalseNegativeMargin: 0.8}, 0.8, func(i int) []int32 {
			return slices.DeleteFunc([]int32{4, 9, 17, 22}, func(x int32) bool { return x == pos[i] })
		}},
		{"uniform corpus/margin", Settings{Kind: KindHard, Negatives: k, Pool: PoolUniform, PoolSize: m, FalseNegativeMargin: 0.5}, 0.5,
			func(i int) []int32 {
				var all []int32
				for j := range int32(m) {
					if j != pos[i] {
						all = append(all, j)
					}
				}
				return all
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			smp, g, err := Build(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if err := smp.(Checker).Check(d); err != nil {
				t.Fatal(err)
			}
			rows := make([]int32, g.ItemRows(b, m))
			smp.Draw(rand.New(rand.NewPCG(3, 3)), d, pos, rows)
			c := candidates.NewStep(g, b, m)
			if err := DeclareSides(smp, c); err != nil {
				t.Fatal(err)
			}
			if err := smp.Declare(d, pos, rows, nil, c); err != nil {
				t.Fatal(err)
			}
			short := 0
			for i := range b {
				sc := func(j int32) float64 { return tw.scores[i][j] }
				cands := tc.pool(i)
				if tc.margin > 0 {
					sp := sc(pos[i])
					bound := tc.margin * sp
					if sp < 0 {
						bound = sp - (1-tc.margin)*math.Abs(sp)
					}
					cands = slices.DeleteFunc(cands, func(j int32) bool { return sc(j) > bound })
				}
				want := topByScore(cands, sc, k, pos[i])
				if len(cands) < k {
					short++
				}
				got := rows[b+i*k : b+(i+1)*k]
				if !slices.Equal(got, want) {
					t.Errorf("row %d: columns %v, want the top %d of the pool %v", i, got, k, want)
				}
				for j := 1; j <= k; j++ {
					if c.ColItem[i*(k+1)+j] != int64(got[j-1]) {
						t.Errorf("row %d column %d: item %d, want %d", i, j, c.ColItem[i*(k+1)+j], got[j-1])
					}
				}
			}
			if tc.margin > 0 && short == 0 {
				t.Error("the planted scores leave no row short of candidates below the margin")
			}
			if c.Col(candidates.LogQ) != nil || c.Col(candidates.LogP) != nil || !g.QUndefined {
				t.Errorf("hard declares log_q or log_p (sides %s), or its geometry has a Q (%v)", c.Describe(), g)
			}
		})
	}
}

// TestHardErrors: k not below the pool's size is one error naming sampler.negatives (the batch's
// other positives, or pool_size), a pool larger than the corpus one naming sampler.pool_size, and
// hard's keys with another sampler, or out of range, errors naming each key; hard and sce given
// no towers (samplers.Data.Towers) are refused by Check, before a step.
func TestHardErrors(t *testing.T) {
	d, _ := plantedData(8, 30, 1)
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kind: KindHard, Negatives: 7}, "negatives: hard keeps the 7 highest-scoring of each row's pool, the batch's other positives, at most train.batch_size − 1 = 7"},
		{Settings{Kind: KindHard, Negatives: 8, Pool: PoolUniform, PoolSize: 31}, "pool_size: 31 distinct items from a corpus of 30 items"},
	} {
		smp, err := New(tt.s)
		if err != nil {
			t.Fatal(err)
		}
		if err := smp.(Checker).Check(d); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%+v: Check = %v, want %q", tt.s, err, tt.want)
		}
	}
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kind: KindHard, Negatives: 64, Pool: PoolUniform, PoolSize: 64}, "negatives: hard keeps the 64 highest-scoring of its pool of pool_size = 64 items"},
		{Settings{Kind: KindHard, Pool: "batch"}, `pool: unknown "batch"`},
		{Settings{Kind: KindHard, PoolSize: 100}, `pool_size: only for hard with pool = "uniform", not sampler hard (pool "in_batch")`},
		{Settings{Kind: KindHard, FalseNegativeMargin: -0.5}, "false_negative_margin: must be in (0, 1]"},
		{Settings{Kind: KindHard, FalseNegativeMargin: 1.2}, "false_negative_margin: must be in (0, 1]"},
		{Settings{Kind: KindUniform, FalseNegativeMargin: 0.9}, "false_negative_margin: only for hard, not sampler uniform"},
		{Settings{Kind: KindUniform, Pool: PoolUniform}, "pool: only for hard, not sampler uniform"},
		{Settings{Kind: KindHard, Buckets: 4}, "buckets: only for sce, not sampler hard"},
		{Settings{Kind: KindSCE, BucketRows: -1}, "bucket_rows: must be > 0"},
		{Settings{Kind: KindHard, Declare: DeclareUnigram}, "declare: sampler hard draws by the model's scores, so its columns have no probability law (Q undefined)"},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch}, {Kind: KindSCE}}}, "of[1]: a mixture's law is its components', and this component draws by the model's scores (Q undefined)"},
	} {
		if _, err := New(tt.s); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want prefix %q", tt.s, err, tt.want)
		}
	}
	smp, _ := New(Settings{Kind: KindHard, Negatives: 2})
	rows := make([]int32, smp.Shape().ItemRows(8, 30))
	smp.Draw(rand.New(rand.NewPCG(1, 1)), &Data{Items: 30, Batch: 8, Queries: make([]int32, 8)}, make([]int32, 8), rows)
	if err := smp.Declare(nil, make([]int32, 8), rows, nil, candidates.NewStep(smp.Shape().Geometry, 8, 30)); err == nil ||
		!strings.Contains(err.Error(), "sampler hard ranks its pool by the model's scores, and the step gives no towers") {
		t.Errorf("hard without towers: %v", err)
	}
	for _, s := range []Settings{{Kind: KindHard, Negatives: 2}, {Kind: KindSCE, Buckets: 2, BucketRows: 2, Negatives: 2}} {
		smp, _ := New(s)
		if err := smp.(Checker).Check(&Data{Items: 30, Batch: 8}); err == nil || !strings.HasPrefix(err.Error(), "kind: sampler "+string(s.Kind)) {
			t.Errorf("%s: Check without towers = %v", s.Kind, err)
		}
	}
}

// sceReference is Mezentsev et al.'s procedure written out (their code's sce_forward): bucket b
// takes the rows rows of highest ⟨ω_b, u⟩ and the n items of highest ⟨ω_b, v⟩; a row's loss is
// its largest, over the buckets holding it, cross-entropy of its positive among the bucket's
// items (its own item masked), logits scores/τ. It returns, per row, the bucket of that largest
// loss (−1 for a row in no bucket), and the buckets' items.
func sceReference(omega [][]float64, tw *plantedTowers, queries, pos []int32, rows, n int) ([]int, [][]int32) {
	m := tw.Dim()
	proj := func(w []float64, x []float64) float64 {
		s := 0.0
		for t := range w {
			s += w[t] * x[t]
		}
		return s
	}
	items := make([][]int32, len(omega))
	best, bucket := make([]float64, len(pos)), make([]int, len(pos))
	for i := range best {
		best[i], bucket[i] = math.Inf(-1), -1
	}
	for b, w := range omega {
		all := make([]int32, m)
		for j := range all {
			all[j] = int32(j)
		}
		unit := func(j int32) []float64 { e := make([]float64, m); e[j] = 1; return e }
		items[b] = topByScore(all, func(j int32) float64 { return proj(w, unit(j)) }, n, 0)
		idx := make([]int32, len(pos))
		for i := range idx {
			idx[i] = int32(i)
		}
		for _, i := range topByScore(idx, func(i int32) float64 { return proj(w, tw.scores[queries[i]]) }, rows, 0) {
			s := tw.scores[queries[i]]
			terms := []float64{s[pos[i]] / tw.tau}
			for _, j := range items[b] {
				if j != pos[i] {
					terms = append(terms, s[j]/tw.tau)
				}
			}
			mx := slices.Max(terms)
			sum := 0.0
			for _, x := range terms {
				sum += math.Exp(x - mx)
			}
			if l := mx + math.Log(sum) - terms[0]; l > best[i] {
				best[i], bucket[i] = l, b
			}
		}
	}
	return bucket, items
}

// TestSCEBuckets: on planted embeddings and planted directions, sce gives each row in a bucket the
// items of its bucket of largest loss, and makes a row in no bucket padding, as the procedure
// written out does; the directions are drawn per step, and its columns have no law.
func TestSCEBuckets(t *testing.T) {
	const b, m, buckets, bucketRows, n = 10, 25, 4, 3, 5
	d, tw := plantedData(b, m, 2)
	rng := rand.New(rand.NewPCG(7, 7))
	omega := make([][]float64, buckets)
	flat := make([]float32, 0, buckets*m)
	for k := range omega {
		omega[k] = make([]float64, m)
		for j := range omega[k] {
			w := float32(rng.NormFloat64())
			omega[k][j] = float64(w)
			flat = append(flat, w)
		}
	}
	pos := make([]int32, b)
	for i := range pos {
		pos[i] = int32(rng.IntN(m))
	}
	smp := &sce{n: n, buckets: buckets, rows: bucketRows}
	u, _ := tw.Queries(d.Queries)
	v, _ := tw.Items(allItems(m))
	rows := make([]int32, smp.Shape().ItemRows(b, m))
	copy(rows, pos)
	smp.assign(flat, u, v, m, m, tw.tau, pos, rows)
	bucket, items := sceReference(omega, tw, d.Queries, pos, bucketRows, n)
	padding := 0
	for i := range b {
		own := rows[b+i*n : b+(i+1)*n]
		if bucket[i] < 0 {
			padding++
			if rows[i] != candidates.NoItem {
				t.Errorf("row %d is in no bucket, and its positive is %d, not padding", i, rows[i])
			}
			continue
		}
		if rows[i] != pos[i] || !slices.Equal(own, items[bucket[i]]) {
			t.Errorf("row %d: positive %d and columns %v, want %d and bucket %d's items %v", i, rows[i], own, pos[i], bucket[i], items[bucket[i]])
		}
	}
	if padding == 0 || padding == b {
		t.Errorf("%d of %d rows in no bucket: the planted case should have some and not all", padding, b)
	}
	// Through Draw: the directions are drawn at every step, and the columns are declared.
	full, g, err := Build(Settings{Kind: KindSCE, Negatives: n, Buckets: buckets, BucketRows: bucketRows})
	if err != nil {
		t.Fatal(err)
	}
	c := candidates.NewStep(g, b, m)
	if err := DeclareSides(full, c); err != nil {
		t.Fatal(err)
	}
	drawRng := rand.New(rand.NewPCG(1, 2))
	prev := ""
	changed := false
	for range 5 {
		full.Draw(drawRng, d, pos, rows)
		if err := full.Declare(d, rows[:b], rows, nil, c); err != nil {
			t.Fatal(err)
		}
		changed = changed || (prev != "" && prev != fmtRows(rows))
		prev = fmtRows(rows)
	}
	if !changed {
		t.Error("five steps gave the same buckets: the directions are not drawn per step")
	}
	if !g.Padded || !g.QUndefined || c.Col(candidates.LogQ) != nil {
		t.Errorf("sce's geometry %v and sides %s: want padded, Q undefined and no log_q", g, c.Describe())
	}
}

// allItems is 0..m−1.
func allItems(m int) []int32 {
	x := make([]int32, m)
	for j := range x {
		x[j] = int32(j)
	}
	return x
}

// fmtRows writes rows as a string, to compare steps.
func fmtRows(rows []int32) string {
	var sb strings.Builder
	for _, r := range rows {
		sb.WriteString(string(rune('A' + r + 2)))
	}
	return sb.String()
}

// TestSCEErrors: more buckets, or rows per bucket, than a step has rows, and more items per bucket
// than the corpus has, are each one error naming the key.
func TestSCEErrors(t *testing.T) {
	d, _ := plantedData(8, 30, 1)
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kind: KindSCE, Buckets: 9, BucketRows: 2}, "buckets: 9 buckets for the 8 rows of a step"},
		{Settings{Kind: KindSCE, Buckets: 2, BucketRows: 9}, "bucket_rows: 9 rows per bucket from the 8 rows of a step"},
		{Settings{Kind: KindSCE, Buckets: 2, BucketRows: 2, Negatives: 31}, "negatives: 31 items per bucket from a corpus of 30 items"},
	} {
		smp, err := New(tt.s)
		if err != nil {
			t.Fatal(err)
		}
		if err := smp.(Checker).Check(d); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%+v: Check = %v, want %q", tt.s, err, tt.want)
		}
	}
}

// TestUndefinedAudit: the audit of a sampler without a law counts its draws and reports Q
// undefined instead of a total variation, in its summary and in sampler_audit.csv.
func TestUndefinedAudit(t *testing.T) {
	d, _ := plantedData(6, 30, 3)
	smp, g, err := Build(Settings{Kind: KindHard, Negatives: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := candidates.NewStep(g, 6, 30)
	if err := DeclareSides(smp, c); err != nil {
		t.Fatal(err)
	}
	a := NewAudit(30)
	rows := make([]int32, g.ItemRows(6, 30))
	pos := []int32{1, 2, 3, 4, 5, 6}
	for range 20 {
		smp.Draw(rand.New(rand.NewPCG(1, 1)), d, pos, rows)
		copy(c.RowItem, []int64{1, 2, 3, 4, 5, 6})
		if err := smp.Declare(d, pos, rows, nil, c); err != nil {
			t.Fatal(err)
		}
		a.Observe(smp.Shape(), c)
	}
	s := a.Summary(d.Counts)
	if !s.QUndefined || s.TV != 0 || s.Draws != 20*2 {
		t.Errorf("summary %+v: want Q undefined, TV 0 and 40 draws", s)
	}
	var sb strings.Builder
	if err := a.WriteCSV(&sb, d.Counts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(sb.String(), "\n")
	if !strings.Contains(lines[1], ",undefined,") || strings.Count(sb.String(), "undefined") != 2*30 {
		t.Errorf("sampler_audit.csv does not say undefined for each item's declarations:\n%s", strings.Join(lines[:3], "\n"))
	}
}

// TestTopK: the selection returns the k highest of random scores with ties, highest first and
// ties by index, as a full sort does, for every k.
func TestTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for n := 1; n <= 60; n += 7 {
		score := make([]float64, n)
		for j := range score {
			score[j] = float64(rng.IntN(5)) // many ties
		}
		for k := 0; k <= n; k++ {
			idx := allItems(n)
			var scratch []float64
			got := slices.Clone(topK(idx, score, k, &scratch))
			want := allItems(n)
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(score[b], score[a]) })
			if !slices.Equal(got, want[:k]) {
				t.Fatalf("n %d, k %d: %v, want %v (scores %v)", n, k, got, want[:k], score)
			}
		}
	}
}
