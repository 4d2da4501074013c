package models

import (
	"reflect"
	"testing"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/metrics"
)

// TestExcludeLists: eval.filter "seen" passes each test query's training items to metrics,
// "known" its train and test items, none nothing; rows follow the test queries' order.
func TestExcludeLists(t *testing.T) {
	ds := &datasets.Dataset{Queries: 3, Items: 6,
		Train: []datasets.Interaction{{Query: 0, Item: 4}, {Query: 0, Item: 1}, {Query: 2, Item: 5}, {Query: 0, Item: 4}},
		Test:  []datasets.Interaction{{Query: 2, Item: 3}, {Query: 0, Item: 2}},
	}
	queries := []int32{2, 0} // row 0 is query 2, row 1 query 0
	for _, c := range []struct {
		filter metrics.Filter
		want   [][]int32
	}{
		{"", nil},
		{metrics.FilterNone, nil},
		{metrics.FilterSeen, [][]int32{{5}, {1, 4}}},
		{metrics.FilterKnown, [][]int32{{3, 5}, {1, 2, 4}}},
	} {
		if got := excludeLists(ds, c.filter, queries); !reflect.DeepEqual(got, c.want) {
			t.Errorf("filter %q: %v, want %v", c.filter, got, c.want)
		}
	}
}
