package setting

import (
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"kitten", "sitting", 3}, // the textbook example: 2 substitutions and 1 insertion
		{"temprature", "temperature", 1},
		{"lgoq", "logq", 1}, // a transposition
		{"unifrom", "uniform", 1},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a transposed pair
		{"logq", "logq", 0},
		{"flaw", "lawn", 2},
		{"é", "e", 1}, // characters, not bytes
	} {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := Distance(tt.a, tt.b); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := Distance(tt.b, tt.a); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestDidYouMean(t *testing.T) {
	names := []string{"plain", "logq", "logq_corrected", "full", "nce"}
	for _, tt := range []struct {
		s, want string
	}{
		{"lgoq", " (did you mean logq?)"},
		{"lgq", " (did you mean logq?)"},
		{"fll", " (did you mean full?)"},
		{"nxx", ""}, // two edits from nce: a three-letter name allows one
		{"plian", " (did you mean plain?)"},
		{"logq_corected", " (did you mean logq_corrected?)"},
		{"ful", " (did you mean full?)"},
		{"something_else", ""},
	} {
		t.Run(tt.s, func(t *testing.T) {
			if got := DidYouMean(tt.s, names); got != tt.want {
				t.Errorf("DidYouMean(%q) = %q, want %q", tt.s, got, tt.want)
			}
		})
	}
	if got, want := DidYouMean("mean", []string{"sum", "meat", "mea"}), " (did you mean meat or mea?)"; got != want {
		t.Errorf("DidYouMean(mean) = %q, want %q", got, want)
	}
	err := &UnknownError{Value: "lgoq", Allowed: names}
	if want := `unknown "lgoq" (allowed: plain, logq, logq_corrected, full, nce); did you mean logq?`; err.Error() != want {
		t.Errorf("%v, want %q", err, want)
	}
}
