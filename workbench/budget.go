package workbench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/samplers"
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

// phase says when a part of a run's memory estimate is live.
type phase int

const (
	phaseBoth  phase = iota // through training and evaluation (the model's parameters)
	phaseTrain              // during training only (optimiser state, a step's buffers)
	phaseEval               // during evaluation only (embeddings, ranks, resamples)
)

// memoryTerm is one part of a run's memory estimate, with the config key that drives it.
type memoryTerm struct {
	key, what string
	bytes     float64
	phase     phase
}

// memoryEstimate estimates the bytes a run allocates beyond its dataset, the sum of what each
// package reports of its own (the scoring workers' tiles are small and left out), each part with
// the config key that drives it and the phase in which it is live: the model's parameters, their
// optimiser state and a training step's activations (models.MemoryOf), the loss's score matrices
// (losses.StepBytes), the sampler's and the estimator's state (samplers.StateBytes,
// estimators.StateBytes), and the evaluation's embeddings, ranks, bootstrap resamples, top lists,
// stratified recall and sampled negatives (models.MemoryOf, metrics.EvalMemoryOf).
func memoryEstimate(cfg *Config, ds *datasets.Dataset, elem float64) ([]memoryTerm, error) {
	ts, g := cfg.Train, cfg.geometry
	mm := models.MemoryOf(cfg.Model, ts, ds, g, elem)
	ev := metrics.EvalMemoryOf(cfg.Eval, len(ds.Test), ds.Items, cfg.Model.Dim(), cfg.Data.Source == datasets.SourceXMC)
	sampler, err := samplers.StateBytes(cfg.Sampler, ts.BatchSize, ds.Items)
	if err != nil {
		return nil, err
	}
	estimator, err := estimators.StateBytes(cfg.Estimator, ds.Items)
	if err != nil {
		return nil, err
	}
	estimatorKey := "estimator.buckets"
	if cfg.Estimator.Kind == estimators.KindExact {
		estimatorKey = "estimator.mode"
	}
	return []memoryTerm{
		{"model.embedding_dim", "embedding tables", mm.Tables, phaseBoth},
		{"model.embedding_dim", fmt.Sprintf("%s state of the embedding tables", ts.Optimizer), mm.TableState, phaseTrain},
		{"model.hidden", "tower weights", mm.Weights, phaseBoth},
		{"model.hidden", "tower gradients and optimiser state", mm.WeightState, phaseTrain},
		{"model.hidden", "activations of a training step", mm.Activations, phaseTrain},
		{"train.validate_every", "the best validation's parameters and a validation's embeddings", mm.Selection, phaseTrain},
		{"model.hidden", "activations of the item tower at evaluation", mm.EvalActivations, phaseEval},
		{scoreKey(cfg, g, ds.Items), scoreWhat(cfg, g, ds.Items), losses.StepBytes(g, ts.BatchSize, ds.Items, elem), phaseTrain},
		{"model.hidden", "embeddings at evaluation", mm.Embeddings, phaseEval},
		{"model.hidden", "the items' embeddings packed for scoring", ev.Packed, phaseEval},
		{"eval.logit_adjust", "ranks and metric values of the test pairs", ev.Ranks, phaseEval},
		{"eval.bootstrap", "bootstrap resamples", ev.Resamples, phaseEval},
		{"eval.exposure", "top lists, stratified recall and sampled negatives of the test pairs", ev.Families, phaseEval},
		calibrationMemory(cfg, ds),
		{"sampler.kind", "sampler's state", sampler, phaseTrain},
		{estimatorKey, "frequency estimator's state and a checkpoint's copy of it", estimator, phaseTrain},
	}, nil
}

// peakBytes is the most memory of terms live at once: the parts live throughout, and the larger
// of training's and evaluation's (the trainer and its optimiser state are freed before the
// evaluation allocates).
func peakBytes(terms []memoryTerm) float64 {
	var by [3]float64
	for _, t := range terms {
		by[t.phase] += t.bytes
	}
	return by[phaseBoth] + math.Max(by[phaseTrain], by[phaseEval])
}

// scoreKey is the key that drives the size of a training step's score matrix over the candidates
// of geometry g from a corpus of m items: the batch size where its columns are mostly the
// batch's, else what adds the others (the corpus of a loss that scores it whole, the sampler's
// memory or negatives).
func scoreKey(cfg *Config, g candidates.Geometry, m int) string {
	r := g.Rows(cfg.Train.BatchSize)
	switch {
	case g.Layout == candidates.Corpus:
		return "sampler.kind (" + string(cfg.Sampler.Kind) + " scores the whole corpus)"
	case g.Cols(r, m) <= 2*r:
		return "train.batch_size"
	case cfg.Sampler.Kind == samplers.KindMemory:
		return "sampler.memory_batches"
	case cfg.Sampler.Kind == samplers.KindMixture:
		return "sampler.of"
	}
	return "sampler.negatives"
}

// scoreWhat names a training step's score matrix over the candidates of geometry g from a corpus
// of m items, saying, where the rows are the positions of SASRec's windows and the columns are
// those rows, that the matrix grows with the square of the positions (docs/sequences.md).
func scoreWhat(cfg *Config, g candidates.Geometry, m int) string {
	r := g.Rows(cfg.Train.BatchSize)
	if !g.Padded || g.PerExample < 2 || g.Layout == candidates.Corpus || g.Cols(r, m) < r {
		return "score matrix of a training step"
	}
	return fmt.Sprintf("score matrix of a training step: SASRec's rows are the %d × %d positions of its windows (train.batch_size × model.sequence.max_length), and sampler %s's columns are those rows too; "+
		"drawn negatives (in_batch_unique, or a mixture with uniform_per_row) score the positions against k columns instead, see docs/sequences.md",
		cfg.Train.BatchSize, g.PerExample, cfg.Sampler.Kind)
}

// runMemory returns the memory a run needs at its peak beyond its dataset (peakBytes of its
// estimate in float32) and the estimate's terms.
func runMemory(cfg *Config, ds *datasets.Dataset) (float64, []memoryTerm, error) {
	terms, err := memoryEstimate(cfg, ds, 4)
	if err != nil {
		return 0, nil, err
	}
	return peakBytes(terms), terms, nil
}

// checkMemory returns the run's peak memory (runMemory) and refuses a run whose dataset and peak
// exceed limit bytes (the machine's memory, named by source), naming the key of the largest part
// of the estimate.
func checkMemory(cfg *Config, ds *datasets.Dataset, limit float64, source string) (float64, error) {
	peak, terms, err := runMemory(cfg, ds)
	if err != nil {
		return 0, err
	}
	if err := refuseMemory("the run", peak+ds.Bytes(), terms, limit, source); err != nil {
		return 0, err
	}
	return peak, nil
}

// refuseMemory is the error of subject ("the run") needing total bytes, more than the limit
// (the memory of source), naming the key and the size of the largest of its parts, terms; nil
// when total fits.
func refuseMemory(subject string, total float64, terms []memoryTerm, limit float64, source string) error {
	if total <= limit {
		return nil
	}
	big := terms[0]
	for _, t := range terms {
		if t.bytes > big.bytes {
			big = t
		}
	}
	return fmt.Errorf("%s: %s needs about %s of memory (%s of it for the %s), more than the %s of %s",
		big.key, subject, formatBytes(total), formatBytes(big.bytes), big.what, formatBytes(limit), source)
}

// The soft memory limit. Go's garbage collector lets the heap grow to twice its live size before
// it collects (GOGC=100), so a run whose live heap is 2.3 GB would reach 4.6 GB and more with no
// limit. Unless the environment sets GOMEMLIMIT, the workbench sets the runtime's soft limit
// (debug.SetMemoryLimit) to the memory of the runs it is about to run (their data and peak
// estimate, see preflight) + the collector's room + limitSlack, at most the machine's memory: near
// the limit the collector runs more often instead of letting the heap grow. The room is
// limitFactor − 1 of the estimate, at most limitRoom: with it the collector collects about every
// time the live heap grows by half (instead of by all of it), so that a small run is not slowed by
// collections; a large run's estimate is mostly its tables and optimiser state, which live for
// the whole run, while its garbage between collections is a step's or an evaluation tile's
// buffers, which do not grow with the corpus, so its room stops at limitRoom (10,000,000 items
// need an 8.7 GiB estimate: a 1.5 × limit would let the heap grow 4 GiB past it). The slack
// covers what the estimate leaves out (goroutine stacks, the runtime's own metadata, the scoring
// workers' tiles, a small run's constant costs). The limit is soft: an estimate that is too low
// slows the run (the collector then runs often, taking at most about half the CPU) but never
// stops it.
const (
	limitFactor = 1.5
	limitRoom   = 2 << 30
	limitSlack  = 256 << 20
)

// memoryLimit is the soft memory limit for runs that need need bytes on a machine of machine
// bytes.
func memoryLimit(need, machine float64) int64 {
	room, _ := heapRoom(need)
	return int64(math.Min(need+room+limitSlack, machine))
}

// heapRoom is the collector's room above an estimate of need bytes: limitFactor − 1 of it, or
// limitRoom when that is less (capped).
func heapRoom(need float64) (room float64, capped bool) {
	if room = need * (limitFactor - 1); room > limitRoom {
		return limitRoom, true
	}
	return room, false
}

// setMemoryLimit sets the runtime's soft memory limit to memoryLimit(need, machine) (machine
// bytes of memory, named by source), unless lookupEnv finds GOMEMLIMIT (the runtime then applies
// it), and says so on w; restore puts the previous limit back.
func setMemoryLimit(need, machine float64, source string, lookupEnv func(string) (string, bool), w io.Writer) (restore func()) {
	if v, ok := lookupEnv("GOMEMLIMIT"); ok {
		fmt.Fprintf(w, "memory: GOMEMLIMIT=%s (the runs' estimate is %s)\n", v, formatBytes(need))
		return func() {}
	}
	limit := memoryLimit(need, machine)
	how := fmt.Sprintf("%g × the runs' estimate of %s + %s", limitFactor, formatBytes(need), formatBytes(limitSlack))
	if _, capped := heapRoom(need); capped {
		how = fmt.Sprintf("the runs' estimate of %s + %s + %s", formatBytes(need), formatBytes(limitRoom), formatBytes(limitSlack))
	}
	if float64(limit) >= machine {
		how = source + ", less than " + how
	}
	prev := debug.SetMemoryLimit(limit)
	fmt.Fprintf(w, "memory: Go heap limited to %s (%s; GOMEMLIMIT overrides)\n", formatBytes(float64(limit)), how)
	return func() { debug.SetMemoryLimit(prev) }
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
