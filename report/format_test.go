package report

import (
	"math"
	"testing"
)

// TestNonzeroNeverZero: a number of summary.md that is not zero never reads as 0.0000: below the
// tables' precision it takes two significant digits, and every other number keeps its fixed
// decimals (so that a summary without such a number is unchanged).
func TestNonzeroNeverZero(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x      float64
		places int
		plus   bool
		want   string
	}{
		{"ordinary", 0.25431, 4, false, "0.2543"},
		{"ordinary signed", -0.0155, 4, true, "-0.0155"},
		{"zero", 0, 4, false, "0.0000"},
		{"zero signed", 0, 4, true, "+0.0000"},
		{"rounds up to the last decimal", 0.00005, 4, false, "0.0001"},
		{"tiny negative difference", -1.2968e-05, 4, true, "-1.3e-05"},
		{"tiny positive difference", 3.1e-07, 4, true, "+3.1e-07"},
		{"tiny half-width", 2.2e-06, 4, false, "2.2e-06"},
		{"three decimals", 0.0004, 3, false, "0.0004"},
		{"one decimal", 0.04, 1, false, "0.04"},
		{"not a number", math.NaN(), 4, false, "NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decimals(tc.x, tc.places, tc.plus); got != tc.want {
				t.Errorf("decimals(%g, %d, %v) = %q, want %q", tc.x, tc.places, tc.plus, got, tc.want)
			}
		})
	}
}

// TestSummaryTextsOfTinyValues: the texts of summary.md's cells, differences and contrasts give
// a nonzero mean, half-width or bound below 0.00005 its digits (the digest once printed
// "-0.0000 ± 0.0000 ✱" for a difference of -1.3e-05).
func TestSummaryTextsOfTinyValues(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"difference", difference{Mean: -1.2968e-05, Lo: -1.5e-05, Hi: -1.05e-05, N: 2}.text(true), "-1.3e-05 ± 2.5e-06 ✱"},
		{"zero difference", difference{N: 2}.text(false), "+0.0000 ± 0.0000"},
		{"one seed's difference", difference{Mean: 4e-05, N: 1}.text(false), "+4e-05"},
		{"cell across seeds", agg{Mean: 3e-05, Lo: -1e-05, Hi: 7e-05, N: 3}.text(), "3e-05 ± 4e-05"},
		{"cell of one seed", agg{Mean: 3e-05, Lo: 3e-05, Hi: 3e-05, N: 1, BootHi: 4e-05}.text(), "3e-05 [0.0000, 4e-05]ᵇ"},
		{"ordinary cell", agg{Mean: 0.5543, Lo: -0.1845, Hi: 1.2931, N: 2}.text(), "0.5543 ± 0.7388"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%q, want %q", tc.got, tc.want)
			}
		})
	}
}
