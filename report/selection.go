package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Selection is what a run selected on its validation set (Run.Selection).
type Selection struct {
	// Metric names the validation metric, e.g. "ndcg@10 (all)".
	Metric string
	// Epoch is the epoch whose parameters are the run's model (train.validate_every); 0 when the
	// epoch was not selected.
	Epoch int
	// EarlyStopped says that early stopping ended the run's training.
	EarlyStopped bool
	// LATau is the post-hoc logit-adjustment strength selected (eval.select_la_tau), nil when
	// none was. The run's Results are then those of its ranking at LATau, given at Tau 0 (and its
	// Ranks at it under Taus [0]): the report puts each run at its own strength in one row of
	// its cell, as it does each run at its own epoch; metrics.csv's selected_la_tau column says
	// which strength a row's run selected.
	LATau *float64
}

// selectionCells are the selections of the runs of each group, in the runs' order.
func selectionCells(recs []*Run) map[string][]*Selection {
	out := map[string][]*Selection{}
	for _, r := range recs {
		if r.Selection != nil {
			out[r.Group] = append(out[r.Group], r.Selection)
		}
	}
	return out
}

// writeSelectionSummary writes summary.md's line on model selection: per row, the epochs and the
// strengths of post-hoc logit adjustment its seeds selected on the validation set, and by which
// metric.
func writeSelectionSummary(w io.Writer, s *summary) {
	if len(s.selection) == 0 {
		return
	}
	metrics := map[string]bool{}
	for _, sels := range s.selection {
		for _, sel := range sels {
			metrics[sel.Metric] = true
		}
	}
	var parts []string
	for _, g := range s.groups {
		sels := s.selection[g]
		if len(sels) == 0 {
			continue
		}
		var epochs, taus []string
		stopped := 0
		for _, sel := range sels {
			if sel.Epoch > 0 {
				epochs = append(epochs, strconv.Itoa(sel.Epoch))
			}
			if sel.LATau != nil {
				taus = append(taus, strconv.FormatFloat(*sel.LATau, 'g', -1, 64))
			}
			if sel.EarlyStopped {
				stopped++
			}
		}
		var what []string
		if len(epochs) > 0 {
			e := "epoch " + strings.Join(epochs, ", ")
			if stopped > 0 {
				e += fmt.Sprintf(" (early stopping in %d of %d)", stopped, len(sels))
			}
			what = append(what, e)
		}
		if len(taus) > 0 {
			what = append(what, "τ_LA "+strings.Join(taus, ", "))
		}
		if len(metrics) > 1 {
			what = append(what, "by "+sels[0].Metric)
		}
		parts = append(parts, fmt.Sprintf(" %s %s;", s.label(g), strings.Join(what, ", ")))
	}
	by := ""
	if len(metrics) == 1 {
		for m := range metrics {
			by = " by " + m
		}
	}
	fmt.Fprintf(w, "\nModel selection on the validation set%s, per row and seed:%s\n", by, strings.Join(parts, ""))
}
