package datasets

import "testing"

// TestCountOf: the counts of test pairs with a cold item or query read back from a Report's
// String, 0 for a count that String leaves out.
func TestCountOf(t *testing.T) {
	for _, tc := range []struct {
		name           string
		r              Report
		items, queries int
	}{
		{"both", Report{Source: SourceInteractions, Train: 5330, Test: 291, ColdTestItems: 12, ColdTestQueries: 3}, 12, 3},
		{"items only", Report{Source: SourceInteractions, Train: 5330, Test: 291, ColdTestItems: 12}, 12, 0},
		{"none", Report{Source: SourceInteractions, Train: 5, Test: 2}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.r.String()
			if got := CountOf(text, CountColdItems); got != tc.items {
				t.Errorf("cold items %d, want %d in\n%s", got, tc.items, text)
			}
			if got := CountOf(text, CountColdQueries); got != tc.queries {
				t.Errorf("cold queries %d, want %d in\n%s", got, tc.queries, text)
			}
		})
	}
}
