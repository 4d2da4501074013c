package workbench

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/samplers"
)

// runRetrieval trains and evaluates every run of the grid that is not finished yet, then writes
// the experiment's metrics.csv, summary.md and figures from every finished run.
func runRetrieval(ctx context.Context, raw, cfg *Config, o options, stdout io.Writer) (err error) {
	begin := time.Now()
	if err := addFinishedSeeds(raw, cfg); err != nil {
		return err
	}
	runs, err := plan(raw, cfg)
	if err != nil {
		return err
	}
	if err := checkOnly(runs, o); err != nil {
		return err
	}
	if msg := unreadEstimator(runs); msg != "" {
		fmt.Fprintf(stdout, "warning: %s\n", msg)
	}
	switch {
	case o.list:
		if err := listRuns(runs, o, stdout); err != nil {
			return err
		}
		return checkReport(cfg, runs, stdout)
	case o.report:
		return reportRetrieval(ctx, raw, cfg, runs, o, stdout)
	}
	if err := checkReport(cfg, runs, stdout); err != nil {
		return err
	}
	cache := &dataCache{sets: map[string]*cachedData{}}
	data, peak, n, err := preflight(runs, o, cache, stdout)
	if err != nil {
		return err
	}
	machine, source := machineMemory()
	if o.jobs == 0 {
		o.jobs = retrievalJobs(data, peak, machine)
	}
	if n > 0 {
		defer setMemoryLimit(data+float64(min(n, o.jobs))*peak, machine, source, o.lookupEnv, stdout)()
	}
	if err := adoptFolder(cfg, runs, stdout); err != nil {
		return err
	}
	if err := claimFolder(cfg.Out, cfg, axisKeyList(cfg.Ablation), stdout); err != nil {
		return err
	}
	keep, note := folderGrid(cfg.Out, runs)
	release, err := registerWriter(cfg, runs, o, !o.shard.sharded() && keep == "")
	if err != nil {
		return err
	}
	defer func() { err = isetting.First(err, release()) }()
	if !o.shard.sharded() && keep == "" {
		if err := writeFolderConfig(cfg.Out, raw); err != nil {
			return err
		}
	}
	runErr := schedule(ctx, runs, o, stdout, func(ctx context.Context, r plannedRun, progress io.Writer) (*runRecord, error) {
		var old *runRecord
		if !o.force {
			var err error
			if old, err = r.trained(); err != nil {
				return nil, err
			}
		}
		return runOne(ctx, r, old, cache, progress)
	}, cache.work)
	if o.shard.sharded() {
		// Folder-level files are the report step's (or an unsharded run's): shards only add runs.
		if runErr == nil {
			fmt.Fprintf(stdout, "%s done; once every shard is, run with -report to write %s's metrics.csv, summary.md and figures\n", o.shard, cfg.Out)
		}
		return runErr
	}
	unlock, err := lockReport(ctx, cfg.Out, o, stdout)
	if err != nil {
		return isetting.First(runErr, err)
	}
	defer func() { err = isetting.First(err, unlock()) }()
	// The error that stopped the runs is the one reported (on a full disk, writing the
	// folder-level files fails too). After a failure, folder-level files that exist are kept: the
	// finished runs may then be a subset of those they summarise (a failed re-evaluation).
	recs, err := records(runs)
	if err != nil {
		return isetting.First(runErr, err)
	}
	if runErr != nil && exists(filepath.Join(cfg.Out, "metrics.csv")) {
		why := "a run failed"
		if ctx.Err() != nil {
			why = "interrupted"
		}
		fmt.Fprintf(stdout, "%s keeps its previous metrics.csv, summary.md and figures: %s\n", cfg.Out, why)
		return runErr
	}
	if keep != "" {
		fmt.Fprintln(stdout, keep)
		return runErr
	}
	if note != "" && len(recs) > 0 {
		fmt.Fprintln(stdout, note)
	}
	if len(recs) > 0 {
		removeStale(cfg.Out, begin)
		if err := writeReport(cfg, runs, recs, stdout); err != nil {
			if runErr != nil { // said here, since the run's error is the one returned
				fmt.Fprintf(stdout, "%s's report of the %s finished is incomplete: %v\n", cfg.Out, plural(len(recs), "run"), err)
			}
			return isetting.First(runErr, err)
		}
		fmt.Fprintf(stdout, "results of %d runs in %s (metrics.csv, summary.md, figures)\n", len(recs), cfg.Out)
	}
	return runErr
}

// preflight loads the data of every run this invocation will run (each distinct data set once,
// into cache, for the runs to use) and refuses a run whose step count overflows or whose memory
// estimate exceeds the machine's memory: all before the folder is claimed or anything trained.
// It returns the memory of the runs' distinct datasets, the largest peak estimate (runMemory) of
// any of them, and their number (0 when none is to run).
func preflight(runs []plannedRun, o options, cache *dataCache, stdout io.Writer) (data, peak float64, n int, err error) {
	limit, source := machineMemory()
	counted := map[*datasets.Dataset]bool{}
	for _, r := range selected(runs, o, true) {
		cache.needs(r.cfg) // before any run loads the data: the index is built once, for all of them
	}
	for _, r := range selected(runs, o, true) {
		if !o.force {
			if rec, err := r.finished(); err != nil || rec != nil {
				continue // finished, or reported by the schedule
			}
		}
		ds, err := cache.load(r.cfg, stdout)
		if err != nil && !r.cfg.written.has("data.source") {
			err = fmt.Errorf("%w (data.source is not set, so its default %q read the data: set data.source = %q for a CSV or TSV of events, %q or %q for the other loaders)",
				err, r.cfg.Data.Source, datasets.SourceInteractions, datasets.SourceXMC, datasets.SourceSynthetic)
		}
		if err == nil {
			err = checkSteps(r.cfg.Train, len(ds.Train))
		}
		if err == nil {
			err = checkEval(r.cfg, ds, ds.ItemCounts())
		}
		var p float64
		if err == nil {
			p, err = checkMemory(r.cfg, ds, limit, source)
		}
		if err != nil {
			return 0, 0, 0, fmt.Errorf("run %s: %w", r.ID, err)
		}
		if !counted[ds] {
			counted[ds] = true
			data += ds.Bytes()
		}
		peak = math.Max(peak, p)
		n++
	}
	return data, peak, n, nil
}

// retrievalJobs is the default number of runs in parallel (-jobs 0): two on a machine of two or
// more cores whose memory holds two runs at the soft limit they would get (memoryLimit of the
// data and two peaks below the machine's memory), else one. A run's products, kernels and
// evaluation are split among all the cores, but its serial parts (the loss, the optimiser's
// dense update, the schedule of the tape machine, the report) leave them partly idle: one run at
// a time kept 1.44 of 2 cores busy on the main job (configs/wiki.toml); a second run fills them.
// More than two would multiply memory for little: the cores are then busy already.
func retrievalJobs(data, peak, machine float64) int {
	if runtime.GOMAXPROCS(0) < 2 || float64(memoryLimit(data+2*peak, machine)) >= machine {
		return 1
	}
	return 2
}

// cachedData is a dataset loaded once for all the runs that share its settings and seed.
type cachedData struct {
	once sync.Once
	ds   *datasets.Dataset
	err  error
}

// dataCache loads each distinct (data settings, seed) once, however many runs use it.
type dataCache struct {
	mu   sync.Mutex
	sets map[string]*cachedData
	// sequences are the data whose runs read histories (a model.sequence encoder): they are
	// loaded with the sequence index (datasets.Options.Sequences), the others without it.
	sequences map[string]bool
	// sizes holds the training pairs and items of each loaded data, last those of the last one.
	sizes map[string]dataSize
	last  dataSize
}

// needs notes what run cfg reads of its data beyond the pairs: the sequence index, for a model
// that reads histories. Marked before the data is loaded, it is built then.
func (c *dataCache) needs(cfg *Config) {
	if !cfg.Model.Sequence.ReadsHistory() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sequences == nil {
		c.sequences = map[string]bool{}
	}
	c.sequences[cacheKey(cfg.Data, cfg.DataSeed)] = true
}

// load returns the dataset of run cfg (its data settings and seed), with what the runs that
// share it read (needs); the run that loads it prints its report's summary (the records read,
// and the ones dropped or set apart) to w.
func (c *dataCache) load(cfg *Config, w io.Writer) (*datasets.Dataset, error) {
	s, seed := cfg.Data, cfg.DataSeed
	c.needs(cfg)
	key := cacheKey(s, seed)
	c.mu.Lock()
	d, ok := c.sets[key]
	if !ok {
		d = &cachedData{}
		c.sets[key] = d
	}
	o := datasets.Options{Sequences: c.sequences[key]}
	c.mu.Unlock()
	d.once.Do(func() {
		if d.ds, d.err = datasets.LoadWith(s, seed, o); d.err == nil {
			fmt.Fprintf(w, "data %s: %s\n", d.ds.Name, d.ds.Report.Summary())
		}
	})
	if d.err == nil && cfg.Model.Sequence.ReadsHistory() && d.ds.Sequences == nil {
		return nil, fmt.Errorf("model.sequence.encoder: %q reads each user's items in time order, and data %s has none (no timestamps)", cfg.Model.Sequence.Encoder, d.ds.Name)
	}
	if d.err == nil {
		c.mu.Lock()
		if c.sizes == nil {
			c.sizes = map[string]dataSize{}
		}
		c.last = dataSize{pairs: len(d.ds.Train), items: d.ds.Items}
		c.sizes[key] = c.last
		c.mu.Unlock()
	}
	return d.ds, dataKeyError(d.err, cfg)
}

// dataKeyError names the config key of an error of the data's loader, whose messages start with
// the key inside [data] ("split.validation_users: …"), as the other config errors do: the full
// key, after where it was written ("FILE:LINE: data.split.validation_users: …").
func dataKeyError(err error, cfg *Config) error {
	if err == nil || configSchema().KeyOf("data."+err.Error()) == "" {
		return err
	}
	return cfg.written.located(fmt.Errorf("data.%w", err), cfg)
}

// dataSize is what the length of a run needs of its data.
type dataSize struct{ pairs, items int }

// cacheKey identifies data by its settings and seed.
func cacheKey(s datasets.Settings, seed int64) string { return fmt.Sprintf("%#v/%d", s, seed) }

// work is the length of a run, for the time left and the order of the runs: its training steps,
// epochs × training pairs / batch size (or train.steps), times the rows its towers compute per
// step (the batch's queries and the sampler's item rows: the full softmax's are the whole
// corpus), counting the pairs and items of its data once loaded and until then those of the data
// loaded last (one pair and one item before any is).
func (c *dataCache) work(r plannedRun) float64 {
	t := r.cfg.Train
	key := cacheKey(r.cfg.Data, r.cfg.DataSeed)
	c.mu.Lock()
	size, ok := c.sizes[key]
	if !ok {
		size = c.last
	}
	c.mu.Unlock()
	steps := float64(t.Steps)
	if t.Steps == 0 {
		steps = float64(t.Epochs) * float64(max(size.pairs, 1)) / float64(max(t.BatchSize, 1))
	}
	g := r.cfg.geometry
	rows := g.Rows(t.BatchSize)
	return steps * float64(rows+g.ItemRows(rows, max(size.items, 1)))
}

// writeRunConfig writes the run's resolved config into its folder, with its axis values as
// axes of one value each, so that the file loaded as a -config is a grid of this one run: the
// same id, settings and hashes (its training and evaluation are found finished in the same
// results folder).
func writeRunConfig(r plannedRun) error {
	own, err := r.cfg.clone()
	if err != nil {
		return err
	}
	for _, s := range r.Settings {
		own.Ablation = append(own.Ablation, Axis{Key: s.Key, Values: []any{s.Value}})
	}
	body, err := own.encodeFor(r.dir)
	if err != nil {
		return err
	}
	return writeBytes(filepath.Join(r.dir, "config.toml"), body)
}

// runOne is one run: data, model, training (estimator in the loop), full-corpus evaluation. It
// writes the run's config.toml, curve.csv and model.bin; the scheduler writes metrics.json. When
// old is the record of the same training (only [eval] or [slices] changed), the run's saved model
// is evaluated again instead of retrained, and old's training summary and curve are kept; a saved
// model that does not load (a flipped bit fails its checksum) is trained again. Training writes
// its checkpoint into the run's folder (every train.checkpoint_every steps, default every epoch):
// a run killed mid-training resumes from it, to the same model.bin and metrics, and the file is
// removed once the run is finished.
func runOne(ctx context.Context, r plannedRun, old *runRecord, cache *dataCache, progress io.Writer) (*runRecord, error) {
	cfg := r.cfg
	removeStale(r.dir, time.Now())
	if err := writeRunConfig(r); err != nil {
		return nil, err
	}
	ds, err := cache.load(cfg, progress)
	if err != nil {
		return nil, err
	}
	counts := ds.ItemCounts()
	notes := emptySlices(counts, metrics.AssignSlices(counts, cfg.Slices), cfg.Slices)
	for _, n := range notes {
		runNote(progress, r.ID, "%s", n)
	}
	m, err := models.New(cfg.Model, ds, tensor.Float32, r.Seed)
	if err != nil {
		return nil, err
	}
	var summary trainSummary
	var curve models.Curve
	if old != nil {
		runNote(progress, r.ID, "training unchanged, evaluating its saved model again")
		if err := m.Load(r.modelPath()); err != nil {
			// A corrupt or unreadable model is trained again, never evaluated.
			runNote(progress, r.ID, "%v: training it again", err)
			if m, err = models.New(cfg.Model, ds, tensor.Float32, r.Seed); err != nil {
				return nil, err
			}
			old = nil
		} else {
			summary, curve = old.Train, old.Curve
		}
	}
	var here trainedHere // nothing, for a saved model evaluated again
	if old == nil {
		if summary, curve, err = train(ctx, r, m, ds, progress); err != nil {
			return nil, err
		}
		here = trainedHere{fraction: 1, seconds: summary.Seconds}
		if summary.Steps > 0 {
			here.fraction = float64(summary.Steps-summary.ResumedFrom) / float64(summary.Steps)
		}
	}
	rec, err := evaluate(ctx, m, ds, r, true, progress)
	if err != nil {
		return nil, err
	}
	// The checkpoint has served: the run's model.bin is saved and its record complete (the
	// scheduler writes it next; a run killed in between trains again).
	if err := r.removeCheckpoint(); err != nil {
		return nil, err
	}
	rec.Train, rec.Curve, rec.here = summary, curve, here
	rec.Data.SliceNotes = notes
	return rec, nil
}

// emptySlices says which slices hold no item of the corpus, and why: the results have no rows
// for such a slice, which must not pass without a word.
func emptySlices(counts []int64, assign []metrics.Slice, s metrics.SliceSettings) []string {
	if len(counts) == 0 {
		return nil
	}
	items := map[metrics.Slice]int{}
	for _, sl := range assign {
		items[sl]++
	}
	lo, hi := slices.Min(counts), slices.Max(counts)
	var notes []string
	want := []metrics.Slice{metrics.SliceHead, metrics.SliceTorso, metrics.SliceTail}
	if s.Bins > 0 {
		// Ties of counts can leave a popularity bin empty (metrics.PopularityBins).
		want = want[:0]
		for i := range s.Bins {
			want = append(want, metrics.SliceBin(i))
		}
	}
	for _, sl := range want {
		if items[sl] > 0 {
			continue
		}
		why := fmt.Sprintf("under slices.method = %q with %d items", s.Method, len(counts))
		if s.Method == metrics.SliceMethodCount {
			switch sl {
			case metrics.SliceHead:
				why = fmt.Sprintf("no item has slices.head_min = %d training pairs or more (the most frequent has %d)", s.HeadMin, hi)
			case metrics.SliceTorso:
				why = fmt.Sprintf("no item has from slices.tail_max = %d to slices.head_min = %d training pairs", s.TailMax, s.HeadMin)
			case metrics.SliceTail:
				why = fmt.Sprintf("no item has fewer than slices.tail_max = %d training pairs (the rarest has %d)", s.TailMax, lo)
			}
		}
		notes = append(notes, fmt.Sprintf("slice %s is empty: %s; its results are left out", sl, why))
	}
	return notes
}

// train trains m with the run's estimator and loss, and saves its curve and parameters.
func train(ctx context.Context, r plannedRun, m *models.Model, ds *datasets.Dataset, progress io.Writer) (trainSummary, models.Curve, error) {
	cfg := r.cfg
	// The estimator's law is that of the training rows' positives (with SASRec, the windows'
	// positions).
	targets, rows, err := models.TrainingRows(cfg.Model, ds, cfg.Train.BatchSize)
	if err != nil {
		return trainSummary{}, nil, err
	}
	env := estimators.Env{BatchSize: rows, CorpusSize: ds.Items, Counts: targets, EmbeddingDim: m.Dim()}
	est, err := estimators.New(cfg.Estimator, env, r.Seed)
	if err != nil {
		return trainSummary{}, nil, err
	}
	if err := usableCheckpoint(r, progress); err != nil {
		return trainSummary{}, nil, err
	}
	if err := r.checkCheckpoint(); err != nil {
		return trainSummary{}, nil, err
	}
	resumed := 0
	if exists(r.checkpointPath()) {
		at, err := models.ReadCheckpointCost(r.checkpointPath())
		if err != nil {
			return trainSummary{}, nil, err
		}
		resumed = at.Steps
		runNote(progress, r.ID, "resuming training from %s (step %d)", r.checkpointPath(), resumed)
	}
	var audit *samplers.Audit
	if cfg.Sampler.Audit {
		audit = samplers.NewAudit(ds.Items)
	}
	var sel *models.Selection
	if cfg.Train.ValidateEvery > 0 {
		sel = &models.Selection{Eval: evalSettings(cfg, r.Seed, ds.Items)}
	}
	start := time.Now()
	curve, err := models.TrainResumable(ctx, m, ds, est, cfg.Loss, cfg.Sampler, cfg.Train, r.Seed, r.checkpointPath(), audit, sel, progress)
	if err != nil {
		return trainSummary{}, nil, trainError(err, cfg)
	}
	seconds := time.Since(start).Seconds()
	if err := writeAtomic(filepath.Join(r.dir, "curve.csv"), func(w io.Writer) error { return writeCurve(w, curve) }); err != nil {
		return trainSummary{}, nil, err
	}
	if err := m.Save(r.modelPath()); err != nil {
		return trainSummary{}, nil, err
	}
	cost, err := models.ReadCheckpointCost(r.checkpointPath())
	if err != nil {
		return trainSummary{}, nil, err
	}
	runNote(progress, r.ID, "%d checkpoints of %.1f KB, %.3f s writing them", cost.Writes, float64(cost.Bytes)/1e3, cost.Seconds)
	last := curve[len(curve)-1]
	sum := trainSummary{Steps: last.Step, ResumedFrom: resumed, Seconds: seconds, FinalLoss: last.Loss,
		ExamplesPerSec: float64((last.Step-resumed)*cfg.Train.BatchSize) / seconds,
		Checkpoints:    checkpointSummary{Writes: cost.Writes, Bytes: cost.Bytes, Seconds: cost.Seconds}}
	if sel != nil {
		b := sel.Points[sel.Best]
		sum.Validation = &validationSummary{Metric: sel.Eval.Eval.SelectName(), Epoch: b.Epoch, Step: b.Step, Value: b.Value,
			EarlyStopped: sel.Stopped, Curve: sel.Points}
		runNote(progress, r.ID, "model selected on the validation set: epoch %d (step %d), %s %.5g", b.Epoch, b.Step, sum.Validation.Metric, b.Value)
		if tied(sel.Points) {
			runNote(progress, r.ID, "warning: all %d validations scored %s %.5g, so the selection kept the first: the metric does not tell these epochs apart (few validation pairs, a selection slice or cut-off that none of them reaches?)",
				len(sel.Points), sum.Validation.Metric, b.Value)
		}
	}
	if len(curve) == 1 && last.Step > 1 {
		runNote(progress, r.ID, "warning: the loss curve has one point: train.log_every = %d is not below the run's %d steps", cfg.Train.LogEvery, last.Step)
	}
	if audit != nil {
		if err := writeAtomic(filepath.Join(r.dir, "sampler_audit.csv"), func(w io.Writer) error { return audit.WriteCSV(w, targets) }); err != nil {
			return trainSummary{}, nil, err
		}
		s := audit.Summary(targets)
		sum.SamplerAudit = &samplerAudit{Steps: audit.Steps(), Draws: s.Draws, TV: s.TV, Floor: s.Floor, HeadWorst: s.HeadWorst, Mass: s.Mass, QUndefined: s.QUndefined, Checked: true}
		if err := audit.Check(); err != nil {
			sum.SamplerAudit.Failure = err.Error()
		}
	}
	return sum, curve, nil
}

// tied reports whether every one of two or more validations gave the same score.
func tied(points []models.ValidationPoint) bool {
	if len(points) < 2 {
		return false
	}
	for _, p := range points[1:] {
		if p.Value != points[0].Value {
			return false
		}
	}
	return true
}

// usableCheckpoint removes the run's checkpoint, with a warning naming it, when it is corrupt (it
// fails its checksum) or of another version: such a checkpoint is treated like a missing one and
// the run trains from the start, rather than failing on every retry.
func usableCheckpoint(r plannedRun, progress io.Writer) error {
	err := models.VerifyCheckpoint(r.checkpointPath())
	var bad *models.UnreadableError
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return nil
	case !errors.As(err, &bad):
		return err
	}
	runNote(progress, r.ID, "warning: %v; training from the start", err)
	if err := os.Remove(r.checkpointPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// trainError turns a training step that diverged (a NaN or infinite loss or gradient) into a
// message that names the step, the value and what to try; other errors pass unchanged.
func trainError(err error, cfg *Config) error {
	var nf *models.NonFiniteError
	if !errors.As(err, &nf) {
		return err
	}
	try := []string{fmt.Sprintf("a smaller train.learning_rate (now %g)", cfg.Train.LearningRate)}
	if c := cfg.Train.Clip; c > 0 {
		try = append(try, fmt.Sprintf("a smaller train.clip (now %g)", c))
	} else {
		try = append(try, "gradient clipping (train.clip, e.g. 1)")
	}
	if tau := cfg.Loss.Temperature; tau > 0 {
		try = append(try, fmt.Sprintf("a larger loss.temperature (now %g)", tau))
	}
	return fmt.Errorf("training diverged at step %d (epoch %d): the %s is %v; try %s or %s",
		nf.Step, nf.Epoch, nf.Quantity, nf.Value, strings.Join(try[:len(try)-1], ", "), try[len(try)-1])
}

// evaluate evaluates the run's model on its data's test pairs (models.Evaluate, with the run's
// settings, evalSettings); the record it returns holds the results, the data's sizes and report,
// the strength of post-hoc logit adjustment selected on validation (eval.select_la_tau) and the
// evaluation time. With files, it writes the run's evaluation files into its folder
// (writeEvalFiles).
func evaluate(ctx context.Context, m *models.Model, ds *datasets.Dataset, r plannedRun, files bool, progress io.Writer) (*runRecord, error) {
	start := time.Now()
	ev, err := models.Evaluate(ctx, m, ds, datasets.PartTest, evalSettings(r.cfg, r.Seed, ds.Items), progress)
	if err != nil {
		return nil, err
	}
	if files {
		if err := writeEvalFiles(r, ev, ds, progress); err != nil {
			return nil, err
		}
	}
	return &runRecord{
		Data: dataSummary{Name: ds.Name, Queries: ds.Queries, Items: ds.Items, Train: len(ds.Train), Valid: len(ds.Valid), Test: len(ds.Test),
			TestQueries: len(ev.Queries), Report: ds.Report.String(), Bins: ev.Bins},
		EvalSeconds: time.Since(start).Seconds(),
		Results:     ev.Results,
		MostPopular: ev.MostPopular,
		Random:      ev.Random,
		Ranks:       pairRanksOf(ev.Evaluation, ev.Taus, ev.Input.ItemSlice),
		LATau:       ev.LATau,
		Calibration: ev.Calibration,
	}, nil
}

// evalSettings are how a run of cfg and seed evaluates its model (models.Evaluate) over a corpus
// of items items: its [eval] and [slices] sections, its loss's temperature and link (with, for a
// softmax loss, a training row's negatives for Khrylchenko et al.'s P̂), whether its data is
// multi-label (source xmc) and its seeds.
func evalSettings(cfg *Config, seed int64, items int) models.EvalSettings {
	s := models.EvalSettings{Eval: cfg.Eval, Slices: cfg.Slices, Temperature: cfg.Loss.Temperature,
		MultiLabel: cfg.Data.Source == datasets.SourceXMC, DataSeed: cfg.DataSeed, Seed: seed, Link: cfg.Loss.Link()}
	if s.Link == losses.LinkSoftmax {
		s.PHatNegatives = cfg.rowColumns(items) - 1
	}
	return s
}

func writeCurve(w io.Writer, curve models.Curve) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"step", "epoch", "loss", "examples_per_sec", "temperature"}); err != nil {
		return err
	}
	for _, p := range curve {
		if err := cw.Write([]string{strconv.Itoa(p.Step), strconv.Itoa(p.Epoch), strconv.FormatFloat(p.Loss, 'g', 8, 64), strconv.FormatFloat(p.ExamplesPerSec, 'f', 0, 64), strconv.FormatFloat(p.Temperature, 'g', 8, 64)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
