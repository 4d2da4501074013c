package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
)

// synthesize generates the synthetic dataset described in SyntheticSettings, with the Truth it
// draws its pairs from.
func synthesize(s SyntheticSettings, seed int64) *Unsplit {
	rng := rand.New(rand.NewPCG(uint64(seed), streamSynthetic))
	m, n, c := s.Items, s.Queries, s.Clusters
	truth := &Truth{itemCluster: make([]int32, m), queryCluster: make([]int32, n), members: make([]int32, c),
		zipf: make([]float64, m), affinity: s.Affinity, shift: int(math.Round(s.Drift * float64(m))), days: s.Days}
	for i := range truth.itemCluster {
		truth.itemCluster[i] = int32(rng.IntN(c))
	}
	members := make([][]int32, c)
	for q := range truth.queryCluster {
		truth.queryCluster[q] = int32(rng.IntN(c))
		members[truth.queryCluster[q]] = append(members[truth.queryCluster[q]], int32(q))
	}
	for k, own := range members {
		truth.members[k] = int32(len(own))
	}
	cum := make([]float64, m) // cumulative Zipf weights by rank
	total := 0.0
	for r := range cum {
		total += math.Pow(float64(r+1), -s.Zipf)
		cum[r] = total
	}
	// The draw below takes rank r when cum[r-1] < u·total ≤ cum[r]: probability
	// (cum[r] − cum[r-1])/total, the term r^-Zipf/total up to the rounding of the sum.
	prev := 0.0
	for r, v := range cum {
		truth.zipf[r] = (v - prev) / total
		prev = v
	}
	pairs := make([]Interaction, 0, s.Interactions)
	for d := range s.Days {
		count := s.Interactions / s.Days
		if d < s.Interactions%s.Days {
			count++
		}
		offset := truth.offset(d)
		for range count {
			r := min(sort.SearchFloat64s(cum, rng.Float64()*total), m-1)
			item := (r - offset + m) % m
			var q int32
			if own := members[truth.itemCluster[item]]; len(own) > 0 && rng.Float64() < s.Affinity {
				q = own[rng.IntN(len(own))]
			} else {
				q = int32(rng.IntN(n))
			}
			pairs = append(pairs, Interaction{
				Query: q, Item: int32(item), Reward: 1,
				Time: int64(d)*secondsPerDay + rng.Int64N(secondsPerDay),
			})
		}
	}
	rep := Report{Source: SourceSynthetic, Records: int64(len(pairs))}
	keys := make([]uint64, len(pairs))
	for i, p := range pairs {
		keys[i] = uint64(p.Query)<<32 | uint64(p.Item)
	}
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			rep.count(&rep.Duplicates, "repeated pair query %d item %d (kept)", keys[i]>>32, keys[i]&(1<<32-1))
		}
	}
	qf := &Features{Fields: []Field{IDField("query_id", n)}}
	itf := &Features{Fields: []Field{IDField("item_id", m)}}
	if s.ClusterFeature {
		qf.Fields = append(qf.Fields, clusterField(truth.queryCluster, c))
		itf.Fields = append(itf.Fields, clusterField(truth.itemCluster, c))
	}
	d := &Dataset{Name: "synthetic", Queries: n, Items: m, QueryFeatures: qf, ItemFeatures: itf, Report: rep, Truth: truth}
	return &Unsplit{Dataset: d, Pairs: pairs, Timed: true}
}

// Truth is the law the synthetic source draws its pairs from (SyntheticSettings): for a pair of
// day d, the item's popularity rank is drawn from the Zipf law and then its query, so that
//
//	P_d(item i)            = z(rank_d(i)),  z(r) = r^−s / Σ_{r'=1..M} r'^−s,  rank_d(i) = ((i + d·shift) mod M) + 1
//	P(query q | item i)    = (1 − a)/N + a·[c_q = c_i]/|Q_{c_i}|  when the cluster c_i of i has queries,
//	                       = 1/N                                   when it has none,
//	P_d(query q)           = Σ_i P_d(i)·P(q | i),
//	P_d(item i | query q)  = P_d(i)·P(q | i) / P_d(q),
//
// a the affinity, N the queries, Q_c the queries of cluster c. It holds the planted clusters and
// the Zipf law, 12 bytes per item and 4 per query, and computes a query's distribution over the
// items in one pass over them from the clusters' popularity mass Σ_{i: c_i = c} P_d(i) of the
// day's ranking (computed once per distinct ranking, when first asked): never a queries × items
// matrix. Its methods may be called concurrently.
type Truth struct {
	zipf                      []float64 // z(r+1), the probability of rank r+1
	itemCluster, queryCluster []int32
	members                   []int32 // |Q_c|, the queries of each cluster
	affinity                  float64
	shift, days               int

	mu   sync.Mutex
	mass map[int][]float64 // by ranking offset: Σ_{c_i = c} P(i) for every cluster c, then the mass of the items of clusters without queries
}

// Bytes is the memory the law holds (nil holds none); the popularity mass of every cluster it
// computes per distinct ranking is left out, being a few values per cluster.
func (t *Truth) Bytes() int64 {
	if t == nil {
		return 0
	}
	return int64(cap(t.zipf))*8 + int64(cap(t.itemCluster)+cap(t.queryCluster)+cap(t.members))*4
}

// Items, Queries and Days are the sizes of the law: items, queries and day buckets.
func (t *Truth) Items() int   { return len(t.itemCluster) }
func (t *Truth) Queries() int { return len(t.queryCluster) }
func (t *Truth) Days() int    { return t.days }

// offset is how far day d's popularity ranking has rotated: item i has rank ((i + offset) mod M) + 1.
func (t *Truth) offset(d int) int { return int((int64(d) * int64(t.shift)) % int64(len(t.zipf))) }

// itemProb is P_d(i) at the ranking offset.
func (t *Truth) itemProb(i, offset int) float64 { return t.zipf[(i+offset)%len(t.zipf)] }

// clusterMass returns, at the ranking offset, Σ_{c_i = c} P(i) for every cluster c followed by the
// mass of the items whose cluster has no query.
func (t *Truth) clusterMass(offset int) []float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.mass[offset]; ok {
		return w
	}
	w := make([]float64, len(t.members)+1)
	for i, c := range t.itemCluster {
		p := t.itemProb(i, offset)
		w[c] += p
		if t.members[c] == 0 {
			w[len(t.members)] += p
		}
	}
	if t.mass == nil {
		t.mass = map[int][]float64{}
	}
	t.mass[offset] = w
	return w
}

// check reports a query or day out of range.
func (t *Truth) check(q int32, day int) error {
	if q < 0 || int(q) >= len(t.queryCluster) {
		return fmt.Errorf("datasets: truth: query %d out of range [0, %d)", q, len(t.queryCluster))
	}
	if day < 0 || day >= t.days {
		return fmt.Errorf("datasets: truth: day %d out of range [0, %d)", day, t.days)
	}
	return nil
}

// QueryProb returns P_d(q), the probability that a pair of day d has query q.
func (t *Truth) QueryProb(q int32, day int) (float64, error) {
	if err := t.check(q, day); err != nil {
		return 0, err
	}
	w := t.clusterMass(t.offset(day))
	n, a, c := float64(len(t.queryCluster)), t.affinity, t.queryCluster[q]
	empty := w[len(t.members)]
	// Σ_i P(i)·P(q|i): items of clusters without queries give 1/N, the others (1 − a)/N, and the
	// items of q's own cluster a/|Q_c| more.
	return empty/n + (1-empty)*(1-a)/n + a*w[c]/float64(t.members[c]), nil
}

// Conditional writes into dst, of length Items, P_d(item i | query q) for every item i of a pair
// of day d: what the generator draws as the item of a pair of that day whose query is q.
func (t *Truth) Conditional(q int32, day int, dst []float64) error {
	if len(dst) != len(t.itemCluster) {
		return fmt.Errorf("datasets: truth: dst has %d entries for %d items", len(dst), len(t.itemCluster))
	}
	z, err := t.QueryProb(q, day)
	if err != nil {
		return err
	}
	n, a, c, off := float64(len(t.queryCluster)), t.affinity, t.queryCluster[q], t.offset(day)
	rest, uniform, own := (1-a)/n/z, 1/n/z, (1-a)/n/z+a/float64(t.members[c])/z
	for i, ci := range t.itemCluster {
		f := rest
		switch {
		case ci == c:
			f = own
		case t.members[ci] == 0:
			f = uniform
		}
		dst[i] = t.itemProb(i, off) * f
	}
	return nil
}

// clusterField is the numeric field "cluster": entity e's bag is its cluster.
func clusterField(cluster []int32, clusters int) Field {
	f := IDField("cluster", len(cluster))
	copy(f.IDs, cluster)
	f.Vocab, f.Known = clusters, clusters
	return f
}

// Mixture writes into dst, of length Items, P(item i | query q) of a pair whose day is drawn
// uniformly from days (repeats counting): the mean over days of Conditional, e.g. the law of the
// items of q's test pairs given their days. Days whose popularity ranking is the same (every day
// without drift) share one pass over the items.
func (t *Truth) Mixture(q int32, days []int32, dst []float64) error {
	if len(days) == 0 {
		return fmt.Errorf("datasets: truth: query %d: no day to mix", q)
	}
	weight := map[int]float64{} // by ranking offset
	var offsets []int
	first := map[int]int{} // a day of each offset
	for _, d := range days {
		if err := t.check(q, int(d)); err != nil {
			return err
		}
		o := t.offset(int(d))
		if _, ok := weight[o]; !ok {
			offsets = append(offsets, o)
			first[o] = int(d)
		}
		weight[o] += 1 / float64(len(days))
	}
	if len(offsets) == 1 {
		return t.Conditional(q, first[offsets[0]], dst)
	}
	clear(dst)
	tmp := make([]float64, len(dst))
	for _, o := range offsets {
		if err := t.Conditional(q, first[o], tmp); err != nil {
			return err
		}
		for i, p := range tmp {
			dst[i] += weight[o] * p
		}
	}
	return nil
}
