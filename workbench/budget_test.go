package workbench

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/samplers"
)

// TestCheckSteps: a step count or example count that overflows an int is an error naming the
// key (epochs × steps per epoch once wrapped to a negative count and panicked).
func TestCheckSteps(t *testing.T) {
	tests := []struct {
		name string
		ts   models.TrainSettings
		n    int
		want string // "" for no error
	}{
		{"ordinary", models.TrainSettings{BatchSize: 128, Epochs: 10}, 8000, ""},
		{"max int epochs", models.TrainSettings{BatchSize: 128, Epochs: math.MaxInt}, 8000, "train.epochs: 9223372036854775807 epochs of 62 steps overflow the step count"},
		{"1e18 epochs", models.TrainSettings{BatchSize: 128, Epochs: 1e18}, 8000, "train.epochs: 1000000000000000000 epochs of 62 steps"},
		{"largest epochs that fit steps but not examples", models.TrainSettings{BatchSize: 128, Epochs: math.MaxInt / 62}, 8000, "train.epochs: 9223372036854775800 steps of batch_size 128 overflow"},
		{"steps × batch", models.TrainSettings{BatchSize: 128, Steps: math.MaxInt / 64}, 8000, "train.steps: 144115188075855871 steps of batch_size 128"},
		{"steps that fit", models.TrainSettings{BatchSize: 128, Steps: math.MaxInt / 128}, 8000, ""},
		{"data smaller than a batch is models.Train's error", models.TrainSettings{BatchSize: 128, Epochs: math.MaxInt}, 100, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkSteps(tt.ts, tt.n)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, tt.want)
		})
	}
}

// TestRunRefusedBeforeAllocating: inputs that once crashed with an out-of-memory dump or
// an index panic are each one error naming the key, through the whole command. The sizes
// asked for (terabytes and more) exceed any machine's memory. A refused run does not claim its
// folder: the corrected command then runs there.
func TestRunRefusedBeforeAllocating(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		set  string
		want []string
	}{
		{"model.embedding_dim=1000000000", []string{"model.embedding_dim: the run needs about", "TiB of memory", "embedding tables", "more than the"}},
		{"model.hidden=[2000000000]", []string{"model.hidden: the run needs about", "more than the"}},
		{"eval.bootstrap=1000000000000", []string{"eval.bootstrap: the run needs about", "bootstrap resamples", "more than the"}},
		{"train.epochs=9223372036854775807", []string{"train.epochs: 9223372036854775807 epochs of 56 steps overflow the step count"}},
		{"train.epochs=1000000000000000000", []string{"train.epochs: 1000000000000000000 epochs of 56 steps overflow"}},
		// The score matrix's columns are the memory sampler's: its key is named, not the batch size.
		{"sampler.memory_batches=100000000", []string{"sampler.memory_batches: the run needs about", "score matrix of a training step", "more than the"}},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			sets := []string{"-set", tt.set}
			if strings.HasPrefix(tt.set, "sampler.memory") {
				sets = append(sets, "-set", "sampler.kind=memory")
			}
			_, err := runCommand(t, append([]string{"-config", smokeConfig, "-out", dir, "-only", "variant=plain,seed=1"}, sets...)...)
			wantError(t, err, append([]string{"run variant=plain,seed=1: "}, tt.want...)...)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "config.toml")); err == nil {
		t.Error("a refused run claimed the folder")
	}
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "variant=plain,seed=1"); err != nil {
		t.Errorf("the corrected command: %v", err)
	}
}

// TestMemoryLimit: the estimate of the smoke run fits in 1 GiB and not in 1 MiB; the error
// names the limit's source. (The smoke run: 56 steps per epoch of 128 pairs; 700 embedding rows
// of 16 floats with Adam's two moments; 300 items; the streaming estimator's default buckets.)
func TestMemoryLimit(t *testing.T) {
	raw, cfg, err := loadConfig(smokeConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := plan(raw, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cache := &dataCache{sets: map[string]*cachedData{}}
	rc := runs[0].cfg
	ds, err := cache.load(rc, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	peak, terms, err := runMemory(rc, ds)
	if err != nil {
		t.Fatal(err)
	}
	total := peak + ds.Bytes()
	t.Logf("estimate %s: %+v", formatBytes(total), terms)
	// The tables: 700 rows × 16 × 4 bytes, and 2 Adam moments of each value while training.
	if want := float64(700 * 16 * 4); terms[0].bytes != want || terms[0].phase != phaseBoth {
		t.Errorf("embedding tables: %v bytes in phase %d, want %v throughout", terms[0].bytes, terms[0].phase, want)
	}
	if want := float64(700 * 16 * 2 * 4); terms[1].bytes != want || terms[1].phase != phaseTrain {
		t.Errorf("their Adam state: %v bytes in phase %d, want %v while training", terms[1].bytes, terms[1].phase, want)
	}
	// The streaming estimator's 2^20 buckets of 16 bytes, and their copy in a checkpoint.
	if want, last := float64(2*16<<20), terms[len(terms)-1]; last.bytes != want || last.phase != phaseTrain || last.key != "estimator.buckets" {
		t.Errorf("the estimator: %v bytes in phase %d under %s, want %v while training under estimator.buckets", last.bytes, last.phase, last.key, want)
	}
	if peak, err := checkMemory(rc, ds, total, "test limit"); err != nil {
		t.Errorf("limit = estimate: %v", err)
	} else if want, _, _ := runMemory(rc, ds); peak != want {
		t.Errorf("checkMemory returned a peak of %v bytes, runMemory %v", peak, want)
	}
	_, err = checkMemory(rc, ds, 1<<10, "a test limit")
	wantError(t, err, "the run needs about", "of memory", "more than the 1.0 KiB of a test limit")
	// Scoring workers are clamped to the blocks of queries: many of them need no more memory.
	many := *rc
	many.Eval.Workers = 1 << 40
	if _, err := checkMemory(&many, ds, total, "test limit"); err != nil {
		t.Errorf("eval.workers = 2^40: %v", err)
	}
}

func TestMemTotal(t *testing.T) {
	kb, ok := memTotal([]byte("MemTotal:       16309684 kB\nMemFree:         1 kB\n"))
	if !ok || kb != 16309684 {
		t.Errorf("memTotal = %v, %v", kb, ok)
	}
	if _, ok := memTotal([]byte("MemFree: 1 kB\n")); ok {
		t.Error("memTotal found a value without a MemTotal line")
	}
}

// TestRetrievalJobs: by default two runs go at once on two or more cores when the soft limit of
// two runs stays below the machine's memory, else one.
func TestRetrievalJobs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const gib = 1 << 30
	for _, tc := range []struct {
		procs             int
		data, peak, total float64
		want              int
	}{
		{2, 0.1 * gib, 0.2 * gib, 24 * gib, 2},
		{8, 0.1 * gib, 0.2 * gib, 24 * gib, 2},
		{1, 0.1 * gib, 0.2 * gib, 24 * gib, 1},
		{2, 2 * gib, 10 * gib, 24 * gib, 1}, // (2 + 2·10) GiB + 2 GiB of room + slack > 24 GiB
		{2, 2 * gib, 8 * gib, 24 * gib, 2},  // (2 + 2·8) GiB + 2 GiB of room + slack < 24 GiB
		{2, 2 * gib, 8 * gib, 64 * gib, 2},
	} {
		runtime.GOMAXPROCS(tc.procs)
		if got := retrievalJobs(tc.data, tc.peak, tc.total); got != tc.want {
			t.Errorf("GOMAXPROCS %d, data %g GiB, peak %g GiB, machine %g GiB: %d jobs, want %d",
				tc.procs, tc.data/gib, tc.peak/gib, tc.total/gib, got, tc.want)
		}
	}
}

// TestScoreWhatPositions: the memory estimate's score matrix of SASRec's positions under a
// sampler whose columns are the step's rows says that it grows with the square of the positions
// and names the drawn samplers; under drawn negatives, or without positions, it is named plainly.
func TestScoreWhatPositions(t *testing.T) {
	seq := models.Settings{Sequence: models.SequenceSettings{Encoder: models.EncoderSASRec, MaxLength: 200}}
	for _, c := range []struct {
		sampler   samplers.Settings
		positions bool
		want      string
	}{
		{samplers.Settings{Kind: samplers.KindInBatch}, true, "score matrix of a training step: SASRec's rows are the 256 × 200 positions of its windows (train.batch_size × model.sequence.max_length), and sampler in_batch's columns are those rows too"},
		{samplers.Settings{Kind: samplers.KindInBatchUnique, Negatives: 128}, true, "score matrix of a training step"},
		{samplers.Settings{Kind: samplers.KindInBatch}, false, "score matrix of a training step"},
	} {
		smp, err := samplers.New(c.sampler)
		if err != nil {
			t.Fatal(err)
		}
		g := smp.Shape().Geometry
		if c.positions {
			if g, err = models.StepGeometry(seq, g); err != nil {
				t.Fatal(err)
			}
		}
		cfg := &Config{Sampler: c.sampler}
		cfg.Train.BatchSize = 256
		got := scoreWhat(cfg, g, 10_000)
		plain := c.want == "score matrix of a training step"
		if plain && got != c.want || !plain && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s, positions %v: %q, want %q", c.sampler.Kind, c.positions, got, c.want)
		}
	}
}
