package workbench

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

func TestEmptySlices(t *testing.T) {
	rawat := metrics.SliceSettings{Method: metrics.SliceMethodCount, HeadMin: 100, TailMax: 20}
	tests := []struct {
		name   string
		counts []int64
		s      metrics.SliceSettings
		want   []string
	}{
		{"none empty", []int64{0, 25, 300}, rawat, nil},
		// Rawat's thresholds on a corpus whose rarest item has 28 training pairs.
		{"tail", []int64{28, 50, 200}, rawat, []string{"slice tail is empty: no item has fewer than slices.tail_max = 20 training pairs (the rarest has 28); its results are left out"}},
		{"head and torso", []int64{1, 5, 19}, rawat, []string{
			"slice head is empty: no item has slices.head_min = 100 training pairs or more (the most frequent has 19); its results are left out",
			"slice torso is empty: no item has from slices.tail_max = 20 to slices.head_min = 100 training pairs; its results are left out"}},
		{"rank of two items", []int64{3, 1}, metrics.SliceSettings{Method: metrics.SliceMethodRank}, []string{`slice tail is empty: under slices.method = "rank" with 2 items; its results are left out`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			if err := s.Resolve(); err != nil {
				t.Fatal(err)
			}
			got := emptySlices(tt.counts, metrics.AssignSlices(tt.counts, s), s)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestEmptySliceNotice: a slice left empty by the thresholds is announced when the run starts,
// recorded in its metrics.json and noted in summary.md.
func TestEmptySliceNotice(t *testing.T) {
	dir := t.TempDir()
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "^variant=plain,seed=1$",
		"-set", "slices.method=count", "-set", "slices.head_min=1000000", "-set", "slices.tail_max=5")
	if err != nil {
		t.Fatal(err)
	}
	const want = "slice head is empty: no item has slices.head_min = 1000000 training pairs or more (the most frequent has "
	if !strings.Contains(out, "variant=plain,seed=1: "+want) {
		t.Errorf("output lacks the notice:\n%s", out)
	}
	var rec runRecord
	if err := readJSON(filepath.Join(dir, "runs", "variant=plain,seed=1", "metrics.json"), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Data.SliceNotes) != 1 || !strings.HasPrefix(rec.Data.SliceNotes[0], want) {
		t.Errorf("metrics.json slice notes %q", rec.Data.SliceNotes)
	}
	summary := readFile(t, filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "Note: "+want) {
		t.Errorf("summary.md lacks the notice:\n%s", summary)
	}
}
