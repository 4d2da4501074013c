package plots

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLabelTooLongMessage checks that the message of a title just too long for its figure
// states a room smaller than the title's length: the first title refused is longer than the
// figure's width less its margins, but not than the figure's width.
func TestLabelTooLongMessage(t *testing.T) {
	num := regexp.MustCompile(`[0-9]+\.[0-9]+`)
	for n := 10; n < 400; n++ {
		_, _, err := newFigure(Labels{Title: strings.Repeat("x", n), X: "x", Y: "y"}, true, Settings{})
		var le *LayoutError
		if !errors.As(err, &le) {
			continue
		}
		nums := num.FindAllString(le.Problem, -1)
		if len(nums) < 2 {
			t.Fatalf("message %q states no length and room", le.Problem)
		}
		length, _ := strconv.ParseFloat(nums[0], 64)
		room, _ := strconv.ParseFloat(nums[1], 64)
		if !(length > room) {
			t.Errorf("message %q: a label of %.2f in is said to be more than %.2f in", le.Problem, length, room)
		}
		return
	}
	t.Fatal("no title was too long")
}

// TestLabelCombiningMark: a label with a combining mark, which gonum/plot draws beside its
// letter (the hat of "p̂" after the p), is an error naming the label and the mark.
func TestLabelCombiningMark(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Labels
		want string
	}{
		{"x", Labels{X: "Bin's mean p\u0302", Y: "y"}, "X \"Bin's mean p\u0302\" has the combining mark U+0302 at byte 12"},
		{"title", Labels{Title: "e\u0301", X: "x", Y: "y"}, "Title \"e\u0301\" has the combining mark U+0301 at byte 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := newFigure(tc.l, true, Settings{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %s", err, tc.want)
			}
		})
	}
	if _, _, err := newFigure(Labels{X: "Temperature τ", Y: "Recall@10 (τ_LA = 0.5)"}, true, Settings{}); err != nil {
		t.Errorf("labels without combining marks: %v", err)
	}
}
