package models

import (
	"fmt"
	"io"
	"time"

	"github.com/samplingbias/workbench/internal/progress"
)

// reporter shows training progress through internal/progress: a live bar (step, loss,
// examples/s, ETA) when the writer is a terminal, plain lines at curve points at most every
// interval otherwise.
type reporter struct {
	m        *progress.Meter
	total, b int
}

func newReporter(w io.Writer, total, batch int, seconds float64, resumed int) *reporter {
	r := &reporter{m: progress.New(w, int64(total)*int64(batch), "examples", time.Duration(seconds*float64(time.Second))), total: total, b: batch}
	r.m.From(int64(resumed) * int64(batch)) // the steps of a checkpoint resumed from are not this process's
	return r
}

// step records a finished step and its loss.
func (r *reporter) step(step int, loss float64) {
	if r.m.Live() {
		r.m.Add(int64(r.b), fmt.Sprintf("step %d/%d loss %.4f", step, r.total, loss))
	}
}

// point records a point of the training curve; last says it is the final one.
func (r *reporter) point(p Point, last bool) {
	r.m.Line(int64(p.Step)*int64(r.b), last, fmt.Sprintf("step %d/%d epoch %d loss %.4f", p.Step, r.total, p.Epoch, p.Loss))
}

// close ends the bar's line.
func (r *reporter) close() { r.m.Close() }
