package datasets

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestSyntheticDeterministic(t *testing.T) {
	s := Settings{Source: "synthetic", Synthetic: SyntheticSettings{Items: 300, Queries: 400, Interactions: 5000, Days: 4, Drift: 0.2, ClusterFeature: true}}
	a, b, c := mustLoad(t, s, 7), mustLoad(t, s, 7), mustLoad(t, s, 8)
	if !slices.Equal(a.Train, b.Train) || !slices.Equal(a.Test, b.Test) {
		t.Error("same seed, different datasets")
	}
	if slices.Equal(a.Train, c.Train) {
		t.Error("different seeds, same dataset")
	}
	qc, ic := a.QueryFeatures.Field("cluster"), a.ItemFeatures.Field("cluster")
	if !slices.Equal(qc.IDs, b.QueryFeatures.Field("cluster").IDs) || !slices.Equal(ic.IDs, b.ItemFeatures.Field("cluster").IDs) {
		t.Error("same seed, different clusters")
	}
	r := a.Report
	if a.Queries != 400 || a.Items != 300 || a.Days != 4 || r.Records != 5000 || r.Pairs != 5000 || qc.Vocab != 20 || ic.Vocab != 20 {
		t.Errorf("%d queries %d items %d days, cluster vocab %d, report\n%v", a.Queries, a.Items, a.Days, qc.Vocab, r)
	}
	for _, p := range slices.Concat(a.Train, a.Test) {
		if p.Time/secondsPerDay != int64(p.Day) || p.Reward != 1 {
			t.Fatalf("pair %+v: time not in its day", p)
		}
	}
}

// zipfSlope fits log(count) = a + slope·log(rank) by least squares over ranks 1..n, where
// item i has rank i+1.
func zipfSlope(counts []int64, n int) float64 {
	var sx, sy, sxx, sxy float64
	for i := range n {
		x, y := math.Log(float64(i+1)), math.Log(float64(counts[i]))
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	k := float64(n)
	return (k*sxy - sx*sy) / (k*sxx - sx*sx)
}

// TestSyntheticZipf checks that item popularity follows the Zipf exponent: the log-log slope
// of count against rank over the 100 most popular items is -s, and the top item's share is
// 1/H(M, s), H(M, s) = Σ_{r=1..M} r^-s.
func TestSyntheticZipf(t *testing.T) {
	for _, s := range []float64{0.8, 1.2} {
		const items, n = 1000, 200000
		d := mustLoad(t, Settings{Source: "synthetic", Synthetic: SyntheticSettings{Items: items, Interactions: n, Days: 1, Zipf: s}}, 3)
		counts := make([]int64, items)
		for _, p := range slices.Concat(d.Train, d.Test) {
			counts[p.Item]++
		}
		if slope := zipfSlope(counts, 100); math.Abs(slope+s) > 0.03 {
			t.Errorf("zipf %v: log-log slope %.4f", s, slope)
		}
		h := 0.0
		for r := 1; r <= items; r++ {
			h += math.Pow(float64(r), -s)
		}
		p := 1 / h
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(float64(counts[0])/n-p) > 4*sd {
			t.Errorf("zipf %v: top item share %.4f, want %.4f ± %.4f", s, float64(counts[0])/n, p, 4*sd)
		}
	}
}

// TestSyntheticAffinity checks the planted clusters: a pair's query shares its item's cluster
// with probability a + (1-a)·|Q_c|/N (own cluster with probability a, else a uniform query).
func TestSyntheticAffinity(t *testing.T) {
	for _, a := range []float64{0.3, 0.9} {
		d := mustLoad(t, Settings{Source: "synthetic", Synthetic: SyntheticSettings{Affinity: a, ClusterFeature: true}}, 5)
		qc, ic := d.QueryFeatures.Field("cluster").IDs, d.ItemFeatures.Field("cluster").IDs
		size := make([]float64, 20)
		for _, c := range qc {
			size[c]++
		}
		var same, want float64
		pairs := slices.Concat(d.Train, d.Test)
		for _, p := range pairs {
			if qc[p.Query] == ic[p.Item] {
				same++
			}
			want += a + (1-a)*size[ic[p.Item]]/float64(d.Queries)
		}
		n := float64(len(pairs))
		same, want = same/n, want/n
		if sd := math.Sqrt(want * (1 - want) / n); math.Abs(same-want) > 4*sd {
			t.Errorf("affinity %v: same-cluster share %.4f, want %.4f ± %.4f", a, same, want, 4*sd)
		}
	}
}

// TestSyntheticDrift checks that the popularity ranking rotates by drift·items ranks a day:
// the most popular item of day d is item (-d·shift) mod items.
func TestSyntheticDrift(t *testing.T) {
	const items, days = 1000, 5
	d := mustLoad(t, Settings{Source: "synthetic", Synthetic: SyntheticSettings{Items: items, Interactions: 200000, Days: days, Drift: 0.1}}, 9)
	counts := make([][]int64, days)
	for i := range counts {
		counts[i] = make([]int64, items)
	}
	for _, p := range slices.Concat(d.Train, d.Test) {
		counts[p.Day][p.Item]++
	}
	for day, c := range counts {
		top := slices.Index(c, slices.Max(c))
		if want := (items - day*100) % items; top != want {
			t.Errorf("day %d: most popular item %d, want %d", day, top, want)
		}
	}
}

// truthSettings is a small corpus whose law TestSyntheticTruth checks against the generator's
// draws: 12 items, 9 queries in 5 clusters (at seed truthSeed, clusters 1 and 4 have items and
// no query, so their items' queries are uniform), popularity drifting 3 ranks a day.
var truthSettings = Settings{Source: "synthetic", Synthetic: SyntheticSettings{Items: 12, Queries: 9, Clusters: 5,
	Affinity: 0.6, Days: 3, Drift: 0.25, Interactions: 300000}}

const truthSeed = 4

// chiSquare returns Pearson's statistic of the day's (query, item) counts against law(q, i),
// the probability of the cell, and its degrees of freedom (cells − 1).
func chiSquare(counts [][]float64, n float64, law func(q, i int) float64) (stat float64, df int) {
	for q, row := range counts {
		for i, c := range row {
			e := n * law(q, i)
			stat += (c - e) * (c - e) / e
			df++
		}
	}
	return stat, df - 1
}

// TestSyntheticTruth checks Truth against the generator's empirical draws: on every day, the
// counts of the 108 (query, item) cells of 100,000 pairs against N·P_d(q)·P_d(i | q) by Pearson's
// chi-square test, whose statistic must stay below its 1 − 10⁻⁶ quantile. The same test rejects
// the laws a plausible mistake gives (the previous day's ranking under drift, queries of
// query-less clusters drawn like the others', a wrong affinity), so that passing it means
// something. Each day's P_d(q) sums to 1 over the queries and P_d(· | q) to 1 over the items.
func TestSyntheticTruth(t *testing.T) {
	d := mustLoad(t, truthSettings, truthSeed)
	tr := d.Truth
	if tr == nil || tr.Items() != 12 || tr.Queries() != 9 || tr.Days() != 3 {
		t.Fatalf("truth %v", tr)
	}
	empty := 0
	for _, m := range tr.members {
		if m == 0 {
			empty++
		}
	}
	if empty == 0 {
		t.Fatal("every cluster has a query: the branch of query-less clusters is not exercised; change truthSeed")
	}
	if b := tr.Bytes(); b != 12*12+4*9+4*5 {
		t.Errorf("the law holds %d bytes, want 12 per item, 4 per query and 4 per cluster", b)
	}
	counts := make([][][]float64, 3)
	for day := range counts {
		counts[day] = make([][]float64, 9)
		for q := range counts[day] {
			counts[day][q] = make([]float64, 12)
		}
	}
	for _, p := range slices.Concat(d.Train, d.Test) {
		counts[p.Day][p.Query][p.Item]++
	}
	// law(day, q) returns P_d(q) and P_d(· | q).
	law := func(tr *Truth, day int, q int32) (float64, []float64) {
		pq, err := tr.QueryProb(q, day)
		if err != nil {
			t.Fatal(err)
		}
		cond := make([]float64, 12)
		if err := tr.Conditional(q, day, cond); err != nil {
			t.Fatal(err)
		}
		return pq, cond
	}
	for day := range 3 {
		sumQ := 0.0
		for q := range int32(9) {
			pq, cond := law(tr, day, q)
			sumQ += pq
			if s := floats.Sum(cond); math.Abs(s-1) > 1e-12 {
				t.Errorf("day %d query %d: Σ_i P(i|q) = %.17g", day, q, s)
			}
		}
		if math.Abs(sumQ-1) > 1e-12 {
			t.Errorf("day %d: Σ_q P(q) = %.17g", day, sumQ)
		}
	}
	critical := func(df int) float64 { return distuv.ChiSquared{K: float64(df)}.Quantile(1 - 1e-6) }
	joint := func(tr *Truth, day int) func(q, i int) float64 {
		return func(q, i int) float64 {
			pq, cond := law(tr, day, int32(q))
			return pq * cond[i]
		}
	}
	for day := range 3 {
		n := 0.0
		for _, row := range counts[day] {
			n += floats.Sum(row)
		}
		stat, df := chiSquare(counts[day], n, joint(tr, day))
		if c := critical(df); stat > c {
			t.Errorf("day %d: chi-square %.1f on %d degrees of freedom, above the 1e-6 quantile %.1f", day, stat, df, c)
		}
	}
	// The mistakes, each rejected on the last day.
	wrongAffinity := &Truth{zipf: tr.zipf, itemCluster: tr.itemCluster, queryCluster: tr.queryCluster, members: tr.members,
		affinity: 0.5, shift: tr.shift, days: tr.days}
	n := 0.0
	for _, row := range counts[2] {
		n += floats.Sum(row)
	}
	for _, c := range []struct {
		name string
		law  func(q, i int) float64
	}{
		{"day 1's ranking", joint(tr, 1)},
		{"affinity 0.5", joint(wrongAffinity, 2)},
		{"query-less clusters' items drawn like the others'", func(q, i int) float64 {
			// P(q | i) = (1 − a)/N for every item outside q's cluster, normalised over the cells.
			w := func(q, i int) float64 {
				f := (1 - tr.affinity) / 9
				if tr.itemCluster[i] == tr.queryCluster[q] {
					f += tr.affinity / float64(tr.members[tr.queryCluster[q]])
				}
				return tr.itemProb(i, tr.offset(2)) * f
			}
			total := 0.0
			for q2 := range 9 {
				for i2 := range 12 {
					total += w(q2, i2)
				}
			}
			return w(q, i) / total
		}},
	} {
		stat, df := chiSquare(counts[2], n, c.law)
		t.Logf("%s: chi-square %.0f", c.name, stat)
		if stat <= critical(df) {
			t.Errorf("%s: chi-square %.1f on %d degrees of freedom does not reject it", c.name, stat, df)
		}
	}
}

// TestSyntheticTruthErrors: a query, day or buffer out of range is an error naming it.
func TestSyntheticTruthErrors(t *testing.T) {
	tr := mustLoad(t, truthSettings, truthSeed).Truth
	for _, c := range []struct {
		q    int32
		day  int
		dst  int
		want string
	}{
		{9, 0, 12, "query 9 out of range [0, 9)"},
		{-1, 0, 12, "query -1"},
		{0, 3, 12, "day 3 out of range [0, 3)"},
		{0, 0, 11, "dst has 11 entries for 12 items"},
	} {
		err := tr.Conditional(c.q, c.day, make([]float64, c.dst))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Conditional(%d, %d, [%d]) = %v, want an error with %q", c.q, c.day, c.dst, err, c.want)
		}
	}
}

// TestSyntheticTruthMixture: the mixture over days is the mean of the days' conditionals, a day
// listed twice counting twice; a single day's is its conditional.
func TestSyntheticTruthMixture(t *testing.T) {
	tr := mustLoad(t, truthSettings, truthSeed).Truth
	cond := func(day int) []float64 {
		out := make([]float64, 12)
		if err := tr.Conditional(5, day, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	c0, c2 := cond(0), cond(2)
	got := make([]float64, 12)
	for _, c := range []struct {
		days []int32
		want func(i int) float64
	}{
		{[]int32{2}, func(i int) float64 { return c2[i] }},
		{[]int32{0, 2, 2}, func(i int) float64 { return (c0[i] + 2*c2[i]) / 3 }},
	} {
		if err := tr.Mixture(5, c.days, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-c.want(i)) > 1e-15 {
				t.Errorf("days %v, item %d: %.17g, want %.17g", c.days, i, got[i], c.want(i))
			}
		}
	}
	if err := tr.Mixture(5, nil, got); err == nil || !strings.Contains(err.Error(), "no day") {
		t.Errorf("no days: %v", err)
	}
	if err := tr.Mixture(5, []int32{0, 7}, got); err == nil || !strings.Contains(err.Error(), "day 7 out of range") {
		t.Errorf("day 7: %v", err)
	}
}
