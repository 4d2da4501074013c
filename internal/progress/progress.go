// Package progress reports the progress of long loops (training steps, evaluated test pairs): a
// live bar with the rate and the ETA when the writer is a terminal, plain lines at most every
// interval otherwise (logs, pipes, files), each ending with the rate and the ETA.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Meter counts done units of a known total. Its methods are for one goroutine.
type Meter struct {
	w        io.Writer
	bar      *progressbar.ProgressBar
	total    int64
	unit     string
	interval time.Duration
	start    time.Time
	last     time.Time // last plain line
	done     int64     // units added to the live bar
	base     int64     // units done before this Meter (see From)
	describe string    // the live bar's description
}

// New returns a Meter of total units named unit ("examples", "pairs") writing to w (nil
// discards): a live bar when w is a terminal, else plain lines at most every interval.
func New(w io.Writer, total int64, unit string, interval time.Duration) *Meter {
	f, ok := w.(*os.File)
	return newMeter(w, total, unit, interval, ok && term.IsTerminal(int(f.Fd())))
}

// newMeter is New with a live bar or not, whatever w is.
func newMeter(w io.Writer, total int64, unit string, interval time.Duration, live bool) *Meter {
	if w == nil {
		w = io.Discard
	}
	m := &Meter{w: w, total: total, unit: unit, interval: interval, start: time.Now()}
	if live {
		m.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(30),
		)
	}
	return m
}

// From records that done units were done before the Meter started (a loop resumed from a
// checkpoint): the rate and the ETA count only the units done since, and the live bar runs over
// the units left.
func (m *Meter) From(done int64) {
	m.base = done
	if m.bar != nil {
		m.bar.ChangeMax64(max(m.total-done, 1))
	}
}

// Live reports whether the Meter shows a live bar (w is a terminal).
func (m *Meter) Live() bool { return m.bar != nil }

// Add advances the live bar by n units and sets its description; without a bar it does nothing.
func (m *Meter) Add(n int64, describe string) {
	if m.bar == nil {
		return
	}
	m.done += n
	m.describe = describe
	m.bar.Describe(describe)
	_ = m.bar.Add64(n) // the bar's only error is exceeding its maximum, which it then clamps
}

// Line writes, without a live bar, the plain line "<text> <rate> <unit>/s eta <eta>" for done
// units of the total, unless the previous line is less than the interval old and last is false.
// The rate is the units done since New (those of From left out) over the time since New.
func (m *Meter) Line(done int64, last bool, text string) {
	if m.bar != nil {
		return
	}
	now := time.Now()
	if !last && !m.last.IsZero() && now.Sub(m.last) < m.interval {
		return
	}
	m.last = now
	elapsed := now.Sub(m.start)
	rate, eta := 0.0, time.Duration(0)
	if here := done - m.base; here > 0 {
		rate = float64(here) / elapsed.Seconds()
		eta = time.Duration(float64(elapsed) * float64(m.total-done) / float64(here))
	}
	fmt.Fprintf(m.w, "%s %.0f %s/s eta %s\n", text, rate, m.unit, eta.Round(time.Second))
}

// Close replaces the live bar by a last line where the bar stood: its description, the units done
// of the total and the rate over the whole time since New. (The bar's own Finish would fill it
// to 100% even when the loop stopped early, as on Ctrl-C, and show the rate of its last few
// updates, which is no rate of the run.)
func (m *Meter) Close() {
	if m.bar == nil {
		return
	}
	_ = m.bar.Clear()
	elapsed := time.Since(m.start)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(m.done) / s
	}
	fmt.Fprintf(m.w, "%s %d/%d %s, %.0f %s/s in %s\n", m.describe, m.base+m.done, m.total, m.unit, rate, m.unit, elapsed.Round(time.Millisecond))
}
