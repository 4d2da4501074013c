package progress

import (
	"regexp"
	"strconv"
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

// TestLiveBarClose: a live bar closed halfway ends with a line that shows where it stood (not
// 100%) and the rate over the whole run: 50 units over at least 50 ms is at most 1000 units/s,
// and at least 50 over the time measured around it. (The bar's own Finish showed 100% and the
// rate of its last updates, e.g. 108977338 pairs/s for a run of about 92k.)
func TestLiveBarClose(t *testing.T) {
	var b strings.Builder
	start := time.Now()
	m := newMeter(&b, 100, "pairs", time.Hour, true)
	if !m.Live() {
		t.Fatal("no live bar")
	}
	m.Add(20, "pairs 20/100")
	time.Sleep(50 * time.Millisecond)
	m.Add(30, "pairs 50/100")
	m.Close()
	elapsed := time.Since(start)
	out := b.String()
	i := strings.LastIndexAny(strings.TrimSuffix(out, "\n"), "\r\n")
	last := out[i+1:]
	re := regexp.MustCompile(`^pairs 50/100 50/100 pairs, (\d+) pairs/s in \S+\n$`)
	sub := re.FindStringSubmatch(last)
	if sub == nil {
		t.Fatalf("last line %q does not match %v", last, re)
	}
	rate, err := strconv.ParseFloat(sub[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	if lo := 50 / elapsed.Seconds(); rate > 1000 || rate < lo-1 {
		t.Errorf("final rate %v pairs/s, want the run's: between %.0f and 1000", rate, lo)
	}
	if strings.Contains(last, "100%") {
		t.Errorf("the closed bar shows 100%%: %q", last)
	}
}

// TestFrom: units done before the Meter (a resumed loop) are not counted in its rate: a plain
// line at the resumed count has no rate yet, and the live bar's last line counts the units of
// the whole loop.
func TestFrom(t *testing.T) {
	var b strings.Builder
	m := New(&b, 100, "examples", 0)
	m.From(50)
	m.Line(50, false, "step 50/100")
	if got := b.String(); got != "step 50/100 0 examples/s eta 0s\n" {
		t.Errorf("line at the resumed count %q, want no rate", got)
	}
	var live strings.Builder
	m = newMeter(&live, 100, "examples", time.Hour, true)
	m.From(50)
	m.Add(10, "step 60/100")
	m.Close()
	if !strings.Contains(live.String(), "step 60/100 60/100 examples, ") {
		t.Errorf("live bar's last line %q, want 60/100 examples", live.String())
	}
}
