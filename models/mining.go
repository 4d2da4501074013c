package models

import (
	"fmt"
	"slices"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// prepareMining refuses a loss that does not mask the positive's copies a sampler may fill a row
// with (samplers.Shape.FillsWithPositive), and gives the sampler what it reads besides the
// positives (samplers.Data): the rows' queries, the current towers (towersView) and, for a sampler that reads them (Shape.Seen) or a
// loss that reads the data's known positives (losses.Settings.ReadsPositives), each query's
// training items; it then declares the data's side input candidates.Positives for such a loss,
// refuses it on data whose every query has one training item, and runs the sampler's checks
// against the data (samplers.Checker).
func (tr *trainer[T]) prepareMining(ds *datasets.Dataset, ls losses.Settings) error {
	if tr.shape.FillsWithPositive && !ls.RemoveAccidentalHits {
		return fmt.Errorf("loss.remove_accidental_hits: sampler %s fills the columns of a row short of candidates with copies of its positive, "+
			"which only remove_accidental_hits = true masks; set it (the sampler's columns never hold the positive otherwise)", tr.g.Sampler)
	}
	tr.data.Queries = tr.ids[sideQuery]
	if !tr.m.ReadsHistory() {
		// A query tower that reads histories embeds a row of the step by its history (a position
		// of a window), not by its query's id: a sampler ranking by the model's scores gets no
		// towers, and refuses (samplers.Checker).
		tr.data.Towers = &towersView[T]{m: tr.m, impl: tr.impl, tau: tr.temperature}
	}
	if tr.shape.Seen || ls.ReadsPositives() {
		tr.data.Seen = ds.TrainPositives()
	}
	if ls.ReadsPositives() {
		if ls.Variant.SeveralPositives() && maxLen(tr.data.Seen) <= 1 {
			return fmt.Errorf("loss.variant: %s counts each query's other training items as positives, and every query of dataset %q has one training item: "+
				"on such data it would be the softmax cross-entropy of plain (or logq); use that variant", ls.Variant, ds.Name)
		}
		if err := tr.st.Declare(candidates.Side{Name: candidates.Positives, Kind: candidates.PerEntry, By: "data"}); err != nil {
			return fmt.Errorf("models: dataset %q: %w", ds.Name, err)
		}
		tr.known = &knownPositives{seen: tr.data.Seen}
	}
	if c, ok := tr.smp.(samplers.Checker); ok {
		if err := c.Check(&tr.data); err != nil {
			return fmt.Errorf("sampler.%w", err)
		}
	}
	return nil
}

// maxLen is the length of the longest list of x.
func maxLen(x [][]int32) int {
	n := 0
	for _, v := range x {
		n = max(n, len(v))
	}
	return n
}

// towersView is samplers.Towers over a trainer's model: the towers' forward definition run in
// inference graphs (no gradient), built on first use and rebuilt larger when a call needs more
// rows (at most inferenceRows at once: longer lists run in chunks), on the model's current
// parameters.
type towersView[T float] struct {
	m    *Model
	impl towerImpl
	tau  func() float64
	f    [2]*inference[T]
	out  [2][]float32
}

func (v *towersView[T]) Dim() int                               { return v.m.Dim() }
func (v *towersView[T]) Temperature() float64                   { return v.tau() }
func (v *towersView[T]) Queries(ids []int32) ([]float32, error) { return v.run(sideQuery, ids) }
func (v *towersView[T]) Items(ids []int32) ([]float32, error)   { return v.run(sideItem, ids) }

// run returns the outputs of side's tower for ids, in a buffer of the side's.
func (v *towersView[T]) run(side int, ids []int32) ([]float32, error) {
	t := v.m.towers[side]
	if rows := min(len(ids), inferenceRows); v.f[side] == nil || v.f[side].rows < rows {
		f, err := newInference[T](v.m, t, rows, v.impl)
		if err != nil {
			return nil, err
		}
		v.f[side] = f
	}
	v.out[side] = reuse.Grow(v.out[side], len(ids)*v.m.Dim())
	return v.out[side], runChunks(v.f[side], ids, nil, v.out[side])
}

// knownPositives fills the data's side input candidates.Positives of a step: for each row that is
// not padding, 1 at every column whose item is a training item of the row's query (seen, sorted
// per query), its own positive's column included.
type knownPositives struct {
	seen [][]int32
	head []int32 // per item: the last shared column holding it at this step (when mark says so)
	mark []int
	prev []int32 // per shared column: the column of the same item before it, −1 for none
	step int
	idx  []int
	val  []float64
}

// fill writes the entries into st for rows of the queries given (len R).
func (k *knownPositives) fill(st *candidates.Step, queries []int32) error {
	g := st.Geometry
	r := len(st.RowItem)
	c := g.Cols(r, st.Items)
	k.idx = k.idx[:0]
	if g.Layout == candidates.Corpus {
		for i := range r {
			for _, item := range k.seen[queries[i]] {
				k.idx = append(k.idx, i*c+int(item))
			}
		}
		return k.set(st)
	}
	shared, first := c-g.PerRow, 0 // the columns every row shares; the first with an item
	if g.Layout == candidates.First {
		first = 1 // column 0: each row's own positive
	}
	k.index(st.ColItem[:shared], first, st.Items)
	for i := range r {
		if st.Padding(i) {
			continue
		}
		seen := k.seen[queries[i]]
		from := len(k.idx)
		if first == 1 {
			k.idx = append(k.idx, i*c)
		}
		if len(seen) < shared {
			for _, item := range seen {
				if k.mark[item] == k.step {
					for j := k.head[item]; j >= 0; j = k.prev[j] {
						k.idx = append(k.idx, i*c+int(j))
					}
				}
			}
		} else {
			for j := first; j < shared; j++ {
				if item := st.ColItem[j]; item >= 0 && has(seen, item) {
					k.idx = append(k.idx, i*c+j)
				}
			}
		}
		for j := shared; j < c; j++ {
			if item := st.ColItem[i*c+j]; item >= 0 && has(seen, item) {
				k.idx = append(k.idx, i*c+j)
			}
		}
		slices.Sort(k.idx[from:])
	}
	return k.set(st)
}

// index lists the shared columns of each item: head and prev over cols[first:].
func (k *knownPositives) index(cols []int64, first, items int) {
	if len(k.mark) != items {
		k.head, k.mark = make([]int32, items), make([]int, items)
	}
	k.step++
	k.prev = reuse.Grow(k.prev, len(cols))
	for j := first; j < len(cols); j++ {
		item := cols[j]
		if item < 0 {
			continue
		}
		k.prev[j] = -1
		if k.mark[item] == k.step {
			k.prev[j] = k.head[item]
		}
		k.head[item], k.mark[item] = int32(j), k.step
	}
}

// set gives the step the entries listed, each of value 1.
func (k *knownPositives) set(st *candidates.Step) error {
	k.val = reuse.Grow(k.val, len(k.idx))
	for e := range k.val {
		k.val[e] = 1
	}
	return st.SetEntries(candidates.Positives, k.idx, k.val)
}

// has reports whether the sorted list seen holds item.
func has(seen []int32, item int64) bool {
	_, ok := slices.BinarySearch(seen, int32(item))
	return ok
}
