package metrics

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestAssignSlices checks each method on toy frequency tables worked out by hand.
func TestAssignSlices(t *testing.T) {
	H, T, L := SliceHead, SliceTorso, SliceTail
	cases := []struct {
		name   string
		counts []int64
		s      SliceSettings
		want   []Slice
	}{
		// Rawat's thresholds: ≥ 100 head, < 20 tail; 100 is head, 20 is torso, 19 is tail.
		{"count default", []int64{150, 100, 99, 20, 19, 0, 5, 300}, SliceSettings{},
			[]Slice{H, H, T, T, L, L, L, H}},
		{"count custom", []int64{150, 100, 99, 20, 19, 0, 5, 300}, SliceSettings{HeadMin: 10, TailMax: 10},
			[]Slice{H, H, H, H, H, L, L, H}},
		{"count head_min = tail_max", []int64{9, 10, 11}, SliceSettings{HeadMin: 10, TailMax: 10},
			[]Slice{L, H, H}},
		// Decreasing order 1 (9), 3 (9), 6 (7), 0 (5), 5 (3), 2 (1), 4 (0); 7 items: head is the
		// first ceil(7/3) = 3, torso up to rank ceil(14/3) = 5, tail the last 2.
		{"rank", []int64{5, 9, 1, 9, 0, 3, 7}, SliceSettings{Method: SliceMethodRank},
			[]Slice{T, H, L, H, L, T, H}},
		// Same order, total 34: before item 1 lies 0 (< 34/3: head), before item 3 lies 9 (head),
		// before item 6 lies 18 (≥ 34/3, < 68/3: torso), before item 0 lies 25 (≥ 68/3: tail).
		{"mass", []int64{5, 9, 1, 9, 0, 3, 7}, SliceSettings{Method: SliceMethodMass},
			[]Slice{L, H, L, H, L, L, T}},
		// One item holds half the mass: it alone is head, the next one covers up to 3/4: torso.
		{"mass skewed", []int64{10, 50, 20, 20, 0, 100}, SliceSettings{Method: SliceMethodMass},
			[]Slice{L, T, L, L, L, H}},
		// Equal counts: ties go by index, and mass and rank agree.
		{"mass ties", []int64{30, 30, 30, 30, 30, 30}, SliceSettings{Method: SliceMethodMass},
			[]Slice{H, H, T, T, L, L}},
		{"rank ties", []int64{30, 30, 30, 30, 30, 30}, SliceSettings{Method: SliceMethodRank},
			[]Slice{H, H, T, T, L, L}},
		{"mass no interactions", []int64{0, 0, 0}, SliceSettings{Method: SliceMethodMass},
			[]Slice{L, L, L}},
		{"empty", nil, SliceSettings{Method: SliceMethodRank}, []Slice{}},
	}
	for _, c := range cases {
		if got := AssignSlices(c.counts, c.s); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAssignSlicesPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"bad settings":   func() { AssignSlices([]int64{1}, SliceSettings{Method: "zipf"}) },
		"negative count": func() { AssignSlices([]int64{1, -1}, SliceSettings{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestSliceString(t *testing.T) {
	got := []string{SliceHead.String(), SliceTorso.String(), SliceTail.String(), SliceAll.String(), Slice(7).String(), Slice(200).String()}
	if want := []string{"head", "torso", "tail", "all", "bin4", "Slice(200)"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

func TestSliceSettingsResolve(t *testing.T) {
	testResolve(t, []resolveCase[SliceSettings]{
		{SliceSettings{}, SliceSettings{Method: "count", HeadMin: 100, TailMax: 20}, ""},
		{SliceSettings{HeadMin: 50, TailMax: 50}, SliceSettings{Method: "count", HeadMin: 50, TailMax: 50}, ""},
		{SliceSettings{Method: "mass"}, SliceSettings{Method: "mass"}, ""},
		{SliceSettings{Method: "rank"}, SliceSettings{Method: "rank"}, ""},
		{SliceSettings{Method: "zipf"}, SliceSettings{}, `method: unknown "zipf" (allowed: count, mass, rank, quantiles, mass_quantiles)`},
		{SliceSettings{Method: "quantiles"}, SliceSettings{Method: "quantiles", Bins: 10}, ""},
		{SliceSettings{Method: "mass_quantiles", Bins: 4}, SliceSettings{Method: "mass_quantiles", Bins: 4}, ""},
		{SliceSettings{Method: "mass", HeadMin: 5}, SliceSettings{}, `head_min: only used with method "count", not "mass"; leave it 0`},
		{SliceSettings{Method: "rank", TailMax: 5}, SliceSettings{}, `tail_max: only used with method "count", not "rank"; leave it 0`},
		{SliceSettings{HeadMin: 10}, SliceSettings{}, "tail_max: must not exceed head_min (10), got 20"},
		{SliceSettings{HeadMin: -1}, SliceSettings{}, "head_min: must be positive, got -1"},
		{SliceSettings{TailMax: -3}, SliceSettings{}, "tail_max: must be positive, got -3"},
	}, func(a, b SliceSettings) bool { return a == b })
}

// TestSliceText checks that a Slice marshals as its name, round trip, through JSON too, and that
// unknown names and values are errors.
func TestSliceText(t *testing.T) {
	for _, s := range append(Slices(), SliceBin(0), SliceBin(MaxBins-1)) {
		b, err := s.MarshalText()
		if err != nil || string(b) != s.String() {
			t.Errorf("%v: %q, %v", s, b, err)
		}
		var back Slice
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%q: back %v, %v", b, back, err)
		}
	}
	r := Result{Slice: SliceTail, Metric: MetricNDCG, K: 10}
	b, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(b), `"Slice":"tail","Metric":"ndcg"`) {
		t.Errorf("JSON %s, %v", b, err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Errorf("JSON back %+v, %v", back, err)
	}
	var s Slice
	if err := s.UnmarshalText([]byte("middle")); err == nil || err.Error() != `metrics: unknown slice "middle" (allowed: head, torso, tail, all, bin1 … bin100)` {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Slice(200).MarshalText(); err == nil {
		t.Error("Slice(200) marshalled")
	}
	if got := Metrics(); !slices.Equal(got, []Metric{"recall", "ndcg", "mrr"}) {
		t.Errorf("Metrics() = %v", got)
	}
}
