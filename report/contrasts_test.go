package report

import (
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// hasAll is a has of contrastCellsOf for groups that evaluated every metric.
func hasAll(string, metrics.Metric) bool { return true }

// TestContrastBySkips: a value of the by axis at which one side has no cell is left out (the
// full softmax has no sampler); a contrast with no value left is an error.
func TestContrastBySkips(t *testing.T) {
	groups := []string{"variant=constant,kind=in_batch", "variant=constant,kind=uniform", "variant=tail,kind=in_batch",
		"variant=tail,kind=uniform", "variant=full,kind=full"}
	got, err := contrastCellsOf([]Contrast{{Name: "x", A: "kind=in_batch", B: "kind=uniform", By: "variant"}}, groups, []float64{0}, 0, true, hasAll)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].a != groups[0] || got[0].b != groups[1] || got[1].a != groups[2] || got[1].b != groups[3] {
		t.Errorf("cells %+v", got)
	}
	_, err = contrastCellsOf([]Contrast{{Name: "x", A: "kind=in_batch", B: "kind=full", By: "variant"}}, groups, []float64{0}, 0, true, hasAll)
	if want := `report.contrast[0] (x): no value of variant has both a cell "kind=in_batch" and a cell "kind=full"`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestContrastSelectsSeveral: a cell that matches several cells of a two-axis grid names them.
func TestContrastSelectsSeveral(t *testing.T) {
	_, err := contrastCellsOf([]Contrast{{Name: "x", A: "variant=logq", B: "variant=plain"}},
		[]string{"variant=plain,temperature=0.1", "variant=logq,temperature=0.1", "variant=plain,temperature=0.2", "variant=logq,temperature=0.2"},
		[]float64{0}, 0, true, hasAll)
	want := `report.contrast[0] (x): a: "variant=logq" selects 2 cells (variant=logq,temperature=0.1; variant=logq,temperature=0.2); give the other axes' values too`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestContrastUnfinished: among a grid's finished cells only (not strict), a contrast whose cells
// have not all finished is left out and the others are resolved; in the whole grid (strict) the
// same contrast is an error.
func TestContrastUnfinished(t *testing.T) {
	finished := []string{"variant=plain", "variant=full"}
	cs := []Contrast{{Name: "late", A: "variant=logq", B: "variant=full"}, {Name: "done", A: "variant=plain", B: "variant=full"}}
	got, err := contrastCellsOf(cs, finished, []float64{0}, 0, false, hasAll)
	if err != nil || len(got) != 1 || got[0].name != "done" {
		t.Errorf("finished cells: %+v, %v; want the contrast done only", got, err)
	}
	if _, err := contrastCellsOf(cs, finished, []float64{0}, 0, true, hasAll); err == nil {
		t.Error("strict: a contrast of a cell the grid does not have was accepted")
	}
}
