package metrics

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// PairList returns the ranking of evaluated pair p under τ k as a run file lists it: its top
// max(K) items, best first, and their decision scores x̂. It is the pair's query's top list
// without the query's other pair items that its filter removes (Settings.Filter: each pair's
// own item stays in its ranking), ordered by x̂ with the pair's item after every item of equal
// x̂ (ties count against it, as in its rank): the pair's item is at its rank whenever that rank
// is at most max(K). It needs an evaluation with Settings.WriteRun.
func (ev *Evaluation) PairList(k, p int) ([]int32, []float64, error) {
	r := ev.r
	if r == nil {
		return nil, nil, errors.New("metrics: the evaluation kept no top lists (Settings.WriteRun)")
	}
	pr := r.pair[p]
	a, _ := slices.BinarySearch(r.queries, pr.Query)
	list, x := r.top.list(k, a)
	sp, sq := r.spOff[a], r.spOff[a+1]
	var items []int32
	var scores []float64
	yAt := -1
	for e, j := range list {
		if j != pr.Item {
			if at, ok := slices.BinarySearch(r.spItem[sp:sq], j); ok && r.spExcl[int(sp)+at] {
				continue // another pair's item, which this pair's filter removes
			}
		} else {
			yAt = len(items)
		}
		items, scores = append(items, j), append(scores, x[e])
	}
	if yAt >= 0 {
		// Move the pair's item after the items of its score.
		end := yAt + 1
		for end < len(items) && scores[end] == scores[yAt] {
			end++
		}
		y, xy := items[yAt], scores[yAt]
		copy(items[yAt:end-1], items[yAt+1:end])
		copy(scores[yAt:end-1], scores[yAt+1:end])
		items[end-1], scores[end-1] = y, xy
	}
	n := min(r.top.kmax, len(items))
	return items[:n], scores[:n], nil
}

// WriteRun writes the run file of τ k in TREC format, one line "qid Q0 docno rank score tag"
// per listed item: qid is the pair's index among the evaluated pairs (from 0), docno the item's
// index, rank its place in the pair's list (PairList, from 1) and score its decision score x̂
// in its shortest exact decimal form, so that equal scores are equal strings.
func (ev *Evaluation) WriteRun(w io.Writer, k int, tag string) error {
	bw := bufio.NewWriter(w)
	for p := range ev.Pairs {
		items, scores, err := ev.PairList(k, p)
		if err != nil {
			return err
		}
		for i, j := range items {
			fmt.Fprintf(bw, "%d Q0 %d %d %s %s\n", p, j, i+1, strconv.FormatFloat(scores[i], 'g', -1, 64), tag)
		}
	}
	return bw.Flush()
}

// WriteQrels writes the evaluated pairs as TREC qrels, one line "qid 0 docno 1" per pair: the
// pair's index (from 0, WriteRun's qid) and its item's index, its only relevant item.
func (ev *Evaluation) WriteQrels(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for p, pr := range ev.Pairs {
		fmt.Fprintf(bw, "%d 0 %d 1\n", p, pr.Item)
	}
	return bw.Flush()
}
