package datasets

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// synthesize generates the synthetic dataset described in SyntheticSettings.
func synthesize(s SyntheticSettings, seed int64) *Unsplit {
	rng := rand.New(rand.NewPCG(uint64(seed), streamSynthetic))
	m, n, c := s.Items, s.Queries, s.Clusters
	itemCluster := make([]int32, m)
	for i := range itemCluster {
		itemCluster[i] = int32(rng.IntN(c))
	}
	queryCluster := make([]int32, n)
	members := make([][]int32, c)
	for q := range queryCluster {
		queryCluster[q] = int32(rng.IntN(c))
		members[queryCluster[q]] = append(members[queryCluster[q]], int32(q))
	}
	cum := make([]float64, m) // cumulative Zipf weights by rank
	total := 0.0
	for r := range cum {
		total += math.Pow(float64(r+1), -s.Zipf)
		cum[r] = total
	}
	shift := int(math.Round(s.Drift * float64(m)))
	pairs := make([]Interaction, 0, s.Interactions)
	for d := range s.Days {
		count := s.Interactions / s.Days
		if d < s.Interactions%s.Days {
			count++
		}
		offset := (d * shift) % m
		for range count {
			r := min(sort.SearchFloat64s(cum, rng.Float64()*total), m-1)
			item := (r - offset + m) % m
			var q int32
			if own := members[itemCluster[item]]; len(own) > 0 && rng.Float64() < s.Affinity {
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
		qf.Fields = append(qf.Fields, clusterField(queryCluster, c))
		itf.Fields = append(itf.Fields, clusterField(itemCluster, c))
	}
	d := &Dataset{Name: "synthetic", Queries: n, Items: m, QueryFeatures: qf, ItemFeatures: itf, Report: rep}
	return &Unsplit{Dataset: d, Pairs: pairs, Timed: true}
}

// clusterField is the numeric field "cluster": entity e's bag is its cluster.
func clusterField(cluster []int32, clusters int) Field {
	f := IDField("cluster", len(cluster))
	copy(f.IDs, cluster)
	f.Vocab, f.Known = clusters, clusters
	return f
}
