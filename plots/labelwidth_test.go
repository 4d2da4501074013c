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
