package models

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// reporter shows training progress: a live bar (step, loss, examples/s, ETA) when the writer is a
// terminal, plain lines at curve points at most every interval otherwise.
type reporter struct {
	w        io.Writer
	bar      *progressbar.ProgressBar
	total, b int
	interval time.Duration
	start    time.Time
	last     time.Time // last plain line
}

func newReporter(w io.Writer, total, batch int, seconds float64) *reporter {
	if w == nil {
		w = io.Discard
	}
	r := &reporter{w: w, total: total, b: batch, interval: time.Duration(seconds * float64(time.Second)), start: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		r.bar = progressbar.NewOptions64(int64(total)*int64(batch),
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetItsString("ex"),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(30),
		)
	}
	return r
}

// step records a finished step and its loss.
func (r *reporter) step(step int, loss float64) {
	if r.bar == nil {
		return
	}
	r.bar.Describe(fmt.Sprintf("step %d/%d loss %.4f", step, r.total, loss))
	_ = r.bar.Add64(int64(r.b)) // the bar's only error is exceeding its maximum, impossible here
}

// point records a point of the training curve; last says it is the final one.
func (r *reporter) point(p Point, last bool) {
	if r.bar != nil {
		return
	}
	now := time.Now()
	if !last && !r.last.IsZero() && now.Sub(r.last) < r.interval {
		return
	}
	r.last = now
	eta := "0s"
	if done := now.Sub(r.start); p.Step > 0 {
		eta = (time.Duration(float64(done) * float64(r.total-p.Step) / float64(p.Step))).Round(time.Second).String()
	}
	fmt.Fprintf(r.w, "step %d/%d epoch %d loss %.4f %.0f examples/s eta %s\n", p.Step, r.total, p.Epoch, p.Loss, p.ExamplesPerSec, eta)
}

// close ends the bar's line.
func (r *reporter) close() {
	if r.bar != nil {
		_ = r.bar.Finish()
		fmt.Fprintln(r.w)
	}
}
