package datasets

import (
	"math"
	"slices"
	"testing"
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
