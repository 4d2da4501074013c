package samplers_test

import (
	"encoding"
	"slices"
	"testing"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// TestMemoryRows: memory (K = 2) puts the previous two batches after the positives, oldest first,
// holds copies of the current batch in the slots not yet filled, and a state saved and restored
// mid-run gives the same rows as the run that was never interrupted.
func TestMemoryRows(t *testing.T) {
	d := samplerstest.SkewedData(2)
	batches := [][]int32{{1, 2}, {3, 4}, {5, 6}, {7, 8}}
	want := [][]int32{{1, 2, 1, 2, 1, 2}, {3, 4, 3, 4, 1, 2}, {5, 6, 1, 2, 3, 4}, {7, 8, 3, 4, 5, 6}}
	smp := must(New(Settings{Kind: KindMemory, MemoryBatches: 2}))
	rows := make([]int32, smp.Shape().ItemRows(2, d.Items))
	var saved []byte
	for i, b := range batches {
		smp.Draw(nil, d, b, rows)
		if !slices.Equal(rows, want[i]) {
			t.Errorf("step %d: rows %v, want %v", i+1, rows, want[i])
		}
		if i == 1 {
			var err error
			if saved, err = smp.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
	}
	resumed := must(New(Settings{Kind: KindMemory, MemoryBatches: 2}))
	if err := resumed.(encoding.BinaryUnmarshaler).UnmarshalBinary(saved); err != nil {
		t.Fatal(err)
	}
	for i, b := range batches[2:] {
		resumed.Draw(nil, d, b, rows)
		if !slices.Equal(rows, want[2+i]) {
			t.Errorf("resumed step %d: rows %v, want %v", 3+i, rows, want[2+i])
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
