package models

import (
	"context"
	"os"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/losses"
)

func TestTmpBar(t *testing.T) {
	ds := idDataset(1000, 1000, 20000, 1)
	m, _ := New(Settings{EmbeddingDim: 16, Hidden: []int{32, 16}}, ds, tensor.Float32, 1)
	_, err := Train(context.Background(), m, ds, newCountEstimator(ds, 64), losses.Settings{}, TrainSettings{BatchSize: 64, Epochs: 2}, 1, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
}
