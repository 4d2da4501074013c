package models

import (
	"math"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
)

// Memory is what package models allocates for a run over a dataset, in bytes, part by part (see
// MemoryOf): the parameters live throughout, the optimiser's state and a step's activations while
// training, and the embeddings while evaluating.
type Memory struct {
	// Tables are the embedding tables; TableState the optimiser's state of them (training).
	Tables, TableState float64
	// Weights are the towers' dense weights; WeightState their gradients and optimiser state
	// (training).
	Weights, WeightState float64
	// Activations are a training step's: every tower row's widths kept three times (forward,
	// backward and a buffer), for the geometry's score rows and the item tower's rows, and, with
	// columns of each row's own, the item rows gathered from the tower, forward and backward.
	Activations float64
	// EvalActivations are the item tower's at evaluation, one chunk of entities embedded at once.
	EvalActivations float64
	// Embeddings are the evaluation's: the corpus's and the test queries'.
	Embeddings float64
	// Selection is, while training selects on validation (TrainSettings.ValidateEvery), the best
	// validation's copy of the tables and weights and a validation's embeddings: the corpus's
	// and the validation queries'.
	Selection float64
}

// MemoryOf estimates the memory a model of settings ms trained with ts on ds, for the candidates
// of geometry g, allocates, in values of elem bytes (4 for float32): the embedding rows of every
// field (a shared table once), the MLP weights, and the activations of the widest tower. It is
// computed in float64, so that no product of counts overflows; it errs on the high side for
// the parts it simplifies (every activation kept three times). ms and ts are resolved.
func MemoryOf(ms Settings, ts TrainSettings, ds *datasets.Dataset, g candidates.Geometry, elem float64) Memory {
	slots := float64(ts.Optimizer.stateWidth())
	r := g.Rows(ts.BatchSize)
	// The item tower's rows of a training step; the item rows gathered from them.
	towerRows, gathered := float64(g.ItemRows(r, ds.Items)), 0.0
	if g.PerRow > 0 {
		// Each row's own draws: the tower runs once per distinct item (at most M rows), and the
		// item rows are gathered from it, forward and backward.
		gathered = towerRows
		towerRows = math.Min(gathered, float64(ds.Items))
	}
	dim := float64(ms.Dim())
	if ms.Sequence.Encoder == EncoderSASRec {
		return sasrecMemory(ms, ts, ds, r, towerRows, gathered, slots, elem)
	}
	var rows, weights, width float64 // embedding rows; MLP weights; activation width per input row
	shared := map[string]bool{}
	for side, fs := range []*datasets.Features{ds.QueryFeatures, ds.ItemFeatures} {
		if fs == nil {
			continue
		}
		in := float64(fs.DenseDim)
		for _, f := range fs.Fields {
			if !(side == sideItem && ms.ShareEmbeddings && shared[f.Name]) {
				rows += float64(f.Vocab)
			}
			shared[f.Name] = true
			in += float64(ms.EmbeddingDim)
		}
		w := in
		for _, h := range ms.Hidden {
			weights += in*float64(h) + float64(h)
			in = float64(h)
			w += in
		}
		width = math.Max(width, w)
	}
	tables := rows * float64(ms.EmbeddingDim)
	var selection float64
	if ts.ValidateEvery > 0 {
		selection = (tables + weights + (float64(ds.Items)+float64(len(ds.Valid)))*dim) * elem
	}
	return Memory{
		Selection:       selection,
		Tables:          tables * elem,
		TableState:      tables * slots * elem,
		Weights:         weights * elem,
		WeightState:     weights * (1 + slots) * elem,
		Activations:     (3*(float64(r)+towerRows)*width + 2*gathered*dim) * elem,
		EvalActivations: math.Min(float64(ds.Items), inferenceRows) * width * elem,
		Embeddings:      (float64(ds.Items) + float64(len(ds.Test))) * dim * elem,
	}
}

// sasrecMemory is MemoryOf for SASRec (ms.Sequence.Encoder): the item tables (two with
// SeparateOutput), the positional table and each block's layers and normalisations, and a step's
// activations: per block about a dozen arrays of the step's r = B·L positions × d (the
// normalisations, the projections, the attention's output, the feed-forward layers, the residual),
// kept three times, and the attention's dropout masks (B·heads·L² per block); at evaluation, the
// encoder's arrays for evalRows histories.
func sasrecMemory(ms Settings, ts TrainSettings, ds *datasets.Dataset, r int, towerRows, gathered, slots, elem float64) Memory {
	seq, d := ms.Sequence, float64(ms.EmbeddingDim)
	L, blocks := float64(seq.MaxLength), float64(seq.Blocks)
	tables := float64(ds.Items) * d
	if seq.SeparateOutput {
		tables *= 2
	}
	weights := L*d + blocks*(5*(d*d+d)+4*d) + 2*d
	perPosition := 3 * d * (3 + 12*blocks)
	masks := 0.0
	if *seq.Dropout > 0 {
		masks = blocks * float64(ts.BatchSize) * float64(seq.Heads) * L * L
	}
	return Memory{
		Tables:          tables * elem,
		TableState:      tables * slots * elem,
		Weights:         weights * elem,
		WeightState:     weights * (1 + slots) * elem,
		Activations:     (float64(r)*perPosition + masks + 3*towerRows*d + 2*gathered*d) * elem,
		EvalActivations: evalRows * L * perPosition * elem,
		Embeddings:      (float64(ds.Items) + float64(len(ds.Test))) * d * elem,
	}
}
