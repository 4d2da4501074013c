package progress

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPlainLines checks the plain-line mode: no bar on a buffer, the first and the last line
// always written, lines in between throttled by the interval, each with the rate and the ETA.
func TestPlainLines(t *testing.T) {
	var b strings.Builder
	m := New(&b, 100, "pairs", time.Hour)
	if m.Live() {
		t.Fatal("a live bar on a strings.Builder")
	}
	m.Add(10, "ignored")
	m.Line(10, false, "pairs 10/100")
	m.Line(50, false, "pairs 50/100") // within the interval: dropped
	m.Line(100, true, "pairs 100/100")
	m.Close()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), b.String())
	}
	re := regexp.MustCompile(`^pairs (10|100)/100 \d+ pairs/s eta \d+(h|m|s|ms|µs|ns)?[0-9hms.µn]*$`)
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("line %q does not match %v", l, re)
		}
	}
	if !strings.HasSuffix(lines[1], " eta 0s") {
		t.Errorf("last line %q: want eta 0s", lines[1])
	}
	var quiet strings.Builder
	m = New(&quiet, 10, "pairs", 0)
	m.Line(5, false, "a")
	m.Line(6, false, "b")
	if n := strings.Count(quiet.String(), "\n"); n != 2 {
		t.Errorf("interval 0: %d lines, want 2", n)
	}
	New(nil, 1, "x", 0).Line(1, true, "discarded") // nil writer: no panic
}
