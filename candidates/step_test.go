package candidates

import (
	"strings"
	"testing"
)

// TestStepSides: a step holds its side inputs by name with the step's lengths (per item: a
// value per column and per row; per row: a value per row), refuses a name declared twice (naming
// both producers) and a name that is not snake_case, and describes its side inputs by producer.
func TestStepSides(t *testing.T) {
	g := Geometry{Sampler: "uniform_per_row", Layout: First, PerRow: 3}
	st := NewStep(g, 4, 50)
	if len(st.RowItem) != 4 || len(st.ColItem) != 16 || st.PosCol != nil || st.Items != 50 {
		t.Fatalf("NewStep: %d rows, %d column entries, PosCol %v, M %d; want 4, 16 (4 rows × C = 4), nil, 50",
			len(st.RowItem), len(st.ColItem), st.PosCol, st.Items)
	}
	for _, sd := range []Side{{Name: LogQ, By: "sampler uniform_per_row"}, {Name: LogP, By: "sampler uniform_per_row"},
		{Name: Rewards, Kind: PerRow, By: "data"}} {
		if err := st.Declare(sd); err != nil {
			t.Fatal(err)
		}
	}
	if len(st.Col(LogQ)) != 16 || len(st.Row(LogQ)) != 4 || st.Col(Rewards) != nil || len(st.Row(Rewards)) != 4 {
		t.Errorf("lengths: log_q %d and %d, rewards %v and %d; want 16 and 4, nil and 4",
			len(st.Col(LogQ)), len(st.Row(LogQ)), st.Col(Rewards), len(st.Row(Rewards)))
	}
	if st.Col("log_age") != nil || st.Row("log_age") != nil {
		t.Error("an undeclared name has values")
	}
	err := st.Declare(Side{Name: LogQ, By: "data"})
	if err == nil || !strings.Contains(err.Error(), "log_q is declared by sampler uniform_per_row and by data") {
		t.Errorf("a name declared twice: %v", err)
	}
	if err := st.Declare(Side{Name: "Log Q"}); err == nil || !strings.Contains(err.Error(), "not lower-case snake_case") {
		t.Errorf("a bad name: %v", err)
	}
	if got, want := st.Describe(), "log_q, log_p (sampler uniform_per_row); rewards (data)"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	mine := []float64{1, 2}
	st.Set(Side{Name: Rewards, Kind: PerRow, By: "test"}, nil, mine)
	if &st.Row(Rewards)[0] != &mine[0] || len(st.Sides()) != 3 {
		t.Errorf("Set did not replace the rewards' vector in place (%d sides)", len(st.Sides()))
	}
}

// TestStepPadding: a padding row is one whose positive is NoItem in a padded geometry; in a
// geometry that is not padded no row is.
func TestStepPadding(t *testing.T) {
	st := NewStep(Geometry{Layout: Diagonal, PerExample: 2, Padded: true}, 2, 10)
	st.RowItem = []int64{3, NoItem, 4, 5}
	if !st.Padding(1) || st.Padding(0) || st.Padding(3) {
		t.Errorf("padded geometry: rows 0, 1, 3 padding %t, %t, %t; want false, true, false", st.Padding(0), st.Padding(1), st.Padding(3))
	}
	st.Geometry.Padded = false
	if st.Padding(1) {
		t.Error("a geometry without padding has a padding row")
	}
}

// TestStepEntries: a per-entry side input starts empty, holds the entries its producer sets (the
// step keeps the slices), has no per-column or per-row values, and refuses entries and values of
// unequal lengths, a name not declared and a side input of another kind.
func TestStepEntries(t *testing.T) {
	st := NewStep(Geometry{Layout: Diagonal}, 3, 10)
	if err := st.Declare(Side{Name: Positives, Kind: PerEntry, By: "data"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Declare(Side{Name: Rewards, Kind: PerRow, By: "data"}); err != nil {
		t.Fatal(err)
	}
	if idx, val := st.Entries(Positives); idx != nil || val != nil || st.Col(Positives) != nil || st.Row(Positives) != nil {
		t.Errorf("a new per-entry side input: entries %v %v, col %v, row %v", idx, val, st.Col(Positives), st.Row(Positives))
	}
	idx, val := []int{0, 4, 7}, []float64{1, 1, 1}
	if err := st.SetEntries(Positives, idx, val); err != nil {
		t.Fatal(err)
	}
	if gi, gv := st.Entries(Positives); &gi[0] != &idx[0] || &gv[0] != &val[0] {
		t.Error("SetEntries did not keep the slices")
	}
	for _, tc := range []struct {
		name string
		idx  []int
		val  []float64
		want string
	}{
		{Positives, []int{1}, nil, "side input positives: 1 entries and 0 values"},
		{"known", []int{1}, []float64{1}, "side input known is not declared"},
		{Rewards, []int{1}, []float64{1}, "side input rewards has a value per row, not per entry"},
	} {
		if err := st.SetEntries(tc.name, tc.idx, tc.val); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetEntries(%s, %v, %v) = %v, want %q", tc.name, tc.idx, tc.val, err, tc.want)
		}
	}
	if got := (Geometry{Sampler: "hard", Layout: First, PerRow: 4, QUndefined: true}).String(); got != "sampler hard (layout first, 4 columns of each row's own, Q undefined)" {
		t.Errorf("String = %q", got)
	}
}
