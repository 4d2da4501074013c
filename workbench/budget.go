package workbench

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/models"
)

// checkSteps refuses a training length whose step count, or count of training examples (steps ×
// batch size), does not fit in an int: training would otherwise loop a wrapped number of times.
// n is the number of training interactions; a dataset smaller than one batch is left to
// models.Train to report.
func checkSteps(ts models.TrainSettings, n int) error {
	b := ts.BatchSize
	perEpoch := n / b
	if perEpoch == 0 {
		return nil
	}
	key, total := "train.steps", ts.Steps
	if total == 0 {
		key = "train.epochs"
		if ts.Epochs > math.MaxInt/perEpoch {
			return fmt.Errorf("%s: %d epochs of %d steps overflow the step count (at most %d epochs)", key, ts.Epochs, perEpoch, math.MaxInt/perEpoch)
		}
		total = ts.Epochs * perEpoch
	}
	if total > math.MaxInt/b {
		return fmt.Errorf("%s: %d steps of batch_size %d overflow the count of training examples (at most %d steps)", key, total, b, math.MaxInt/b)
	}
	return nil
}

// inferenceChunk bounds the rows models embeds at once at evaluation (models' inference chunk).
const inferenceChunk = 2048

// memoryTerm is one part of a run's memory estimate, with the config key that drives it.
type memoryTerm struct {
	key, what string
	bytes     float64
}

// memoryEstimate estimates the bytes a run allocates beyond its dataset: the parameters with
// their gradients and optimiser state, the activations and score matrix of a training step,
// and the evaluation's embeddings, ranks and bootstrap resamples (the scoring workers' tiles are
// small and left out). It is computed in
// float64, so that no product of counts overflows; it errs on the high side for the parts it
// simplifies (every activation kept three times: forward, backward and a buffer).
func memoryEstimate(cfg *Config, ds *datasets.Dataset, elem float64) ([]memoryTerm, error) {
	loss, err := losses.New(cfg.Loss, tensor.Float32)
	if err != nil {
		return nil, err
	}
	ms, ts, es := cfg.Model, cfg.Train, cfg.Eval
	slots := map[models.Optimizer]float64{models.OptimizerAdam: 2, models.OptimizerAdagrad: 1, models.OptimizerMomentum: 1}[ts.Optimizer]
	b := float64(ts.BatchSize)
	cols := b + float64(loss.Settings().Negatives) // columns of the score matrix
	if loss.Layout() == losses.Indexed {
		cols = float64(ds.Items)
	}
	dim := float64(ms.Hidden[len(ms.Hidden)-1])

	var rows, weights, width float64 // embedding rows; MLP weights; activation width per input row
	shared := map[string]bool{}
	for side, fs := range []*datasets.Features{ds.QueryFeatures, ds.ItemFeatures} {
		if fs == nil {
			continue
		}
		in := float64(fs.DenseDim)
		for _, f := range fs.Fields {
			if !(side == 1 && ms.ShareEmbeddings && shared[f.Name]) {
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

	ranks := float64(len(ds.Test)) * float64(len(es.LogitAdjust))
	resamples := math.Max(float64(es.Bootstrap), 0)
	// Each resample holds one mean per metric (recall and NDCG at every K, and MRR), slice (all,
	// head, torso, tail) and logit adjustment, in float64.
	means := float64(len(es.LogitAdjust)) * float64(2*len(es.K)+1) * 4
	return []memoryTerm{
		{"model.embedding_dim", fmt.Sprintf("embedding tables with their %s state", ts.Optimizer), tables * (1 + slots) * elem},
		{"model.hidden", "tower weights, gradients and optimiser state", weights * (2 + slots) * elem},
		{"model.hidden", "activations of a training step and of the item tower at evaluation", (3*(b+cols) + math.Min(float64(ds.Items), inferenceChunk)) * width * elem},
		{"train.batch_size", "score matrix of a training step", 3 * b * cols * elem},
		{"model.hidden", "embeddings at evaluation (the items' twice: as computed and packed for scoring)", (2*float64(ds.Items) + float64(len(ds.Test))) * dim * elem},
		{"eval.logit_adjust", "ranks of the test pairs", ranks * 8},
		{"eval.bootstrap", "bootstrap resamples", resamples * (means + 1) * 8},
	}, nil
}

// checkMemory refuses a run whose memory estimate exceeds limit bytes (the machine's memory,
// named by source), naming the key of the largest part of the estimate.
func checkMemory(cfg *Config, ds *datasets.Dataset, limit float64, source string) error {
	terms, err := memoryEstimate(cfg, ds, 4)
	if err != nil {
		return err
	}
	var total float64
	big := terms[0]
	for _, t := range terms {
		total += t.bytes
		if t.bytes > big.bytes {
			big = t
		}
	}
	if total <= limit {
		return nil
	}
	return fmt.Errorf("%s: the run needs about %s of memory (%s of it for the %s), more than the %s of %s",
		big.key, formatBytes(total), formatBytes(big.bytes), big.what, formatBytes(limit), source)
}

// formatBytes writes a byte count in binary units.
func formatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == len(units)-1 && b >= 1024 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// machineMemory returns the machine's memory in bytes and a description of where it came from:
// MemTotal of /proc/meminfo on Linux; elsewhere, or when it cannot be read, the 128 TiB of user
// address space of a 64-bit process, which no run can exceed either.
func machineMemory() (float64, string) {
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if kb, ok := memTotal(b); ok {
			return kb * 1024, "this machine's memory (MemTotal in /proc/meminfo)"
		}
	}
	return 1 << 47, "a 64-bit process's address space (the machine's memory is unknown)"
}

// memTotal reads MemTotal, in kB, from the text of /proc/meminfo.
func memTotal(meminfo []byte) (float64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
		return kb, err == nil && kb > 0
	}
	return 0, false
}
