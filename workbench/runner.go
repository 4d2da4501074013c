package workbench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/report"
)

// runRecord is a finished run's metrics.json: written last, so its presence marks the run done.
type runRecord struct {
	ID          string            `json:"id"`
	Group       string            `json:"group"`
	Seed        int64             `json:"seed"`
	ConfigHash  string            `json:"config_hash"`
	TrainHash   string            `json:"train_hash"`
	Axes        map[string]string `json:"axes"`
	Data        dataSummary       `json:"data"`
	Train       trainSummary      `json:"train"`
	EvalSeconds float64           `json:"eval_seconds"`
	Results     []metrics.Result  `json:"results"`
	// MostPopular is the most-popular baseline on the run's data (metrics.MostPopular), and
	// Random the random ranking's Recall@K (metrics.RandomBaseline), both filtered as the run's
	// rankings are.
	MostPopular []metrics.Result `json:"most_popular,omitempty"`
	Random      []metrics.Result `json:"random,omitempty"`
	Curve       models.Curve     `json:"curve"`
	// Ranks are the evaluated test pairs' ranks, for the report's paired tests over test pairs.
	Ranks *report.PairRanks `json:"pair_ranks,omitempty"`
	// LATau is the strength of post-hoc logit adjustment selected on the validation set
	// (eval.select_la_tau), the one the Results are at; nil without.
	LATau *models.TauSelection `json:"la_tau_selection,omitempty"`
	// Calibration is the model's calibration against the data's true probabilities (synthetic
	// data; docs/calibration.md), its metrics being among Results.
	Calibration *metrics.Calibration `json:"calibration,omitempty"`
	// here is the part of the run's training done by this process, for the time left.
	here trainedHere
}

// trainedHere is the part of a run's training a process did: the fraction of its steps (those
// after the checkpoint it resumed from; none when it evaluated a saved model again) and the
// seconds they took.
type trainedHere struct {
	fraction, seconds float64
}

// dataSummary records the sizes of the data a run saw.
type dataSummary struct {
	Name        string `json:"name"`
	Queries     int    `json:"queries"`
	Items       int    `json:"items"`
	Train       int    `json:"train"`
	Valid       int    `json:"valid,omitempty"`
	Test        int    `json:"test"`
	TestQueries int    `json:"test_queries"`
	Report      string `json:"report"`
	// SliceNotes says which popularity slices are empty, and why (see emptySlices).
	SliceNotes []string `json:"slice_notes,omitempty"`
	// Bins describes the popularity bins of slices.method "quantiles" and "mass_quantiles".
	Bins []metrics.BinShare `json:"bins,omitempty"`
}

// trainSummary records how training went.
type trainSummary struct {
	Steps int `json:"steps"`
	// ResumedFrom is the step of the checkpoint this process resumed training from (0: it
	// trained from the start); Seconds and ExamplesPerSec are of this process's steps. Not in
	// metrics.json, which is the same however often the run was stopped.
	ResumedFrom    int     `json:"-"`
	Seconds        float64 `json:"seconds"`
	ExamplesPerSec float64 `json:"examples_per_sec"`
	FinalLoss      float64 `json:"final_loss"`
	// Checkpoints is what the run's checkpoints cost (over every process that trained it).
	Checkpoints checkpointSummary `json:"checkpoints"`
	// SamplerAudit summarises sampler_audit.csv (sampler.audit = true only).
	SamplerAudit *samplerAudit `json:"sampler_audit,omitempty"`
	// Validation is the model selection on the validation set (train.validate_every only).
	Validation *validationSummary `json:"validation,omitempty"`
}

// validationSummary is a training's model selection on the validation set: the selection
// metric, every validation and the one whose parameters are the run's model.
type validationSummary struct {
	Metric string `json:"metric"`
	// Epoch, Step and Value are the selected validation's.
	Epoch int     `json:"selected_epoch"`
	Step  int     `json:"selected_step"`
	Value float64 `json:"selected_value"`
	// EarlyStopped says that early stopping (train.patience) ended training.
	EarlyStopped bool                     `json:"early_stopped,omitempty"`
	Curve        []models.ValidationPoint `json:"curve"`
}

// checkpointSummary is models.CheckpointCost in a run's record.
type checkpointSummary struct {
	Writes  int     `json:"writes"`
	Bytes   int64   `json:"bytes"` // of the last one
	Seconds float64 `json:"seconds"`
}

// samplerAudit is a run's samplers.Audit.Summary over the steps it trained.
type samplerAudit struct {
	Steps     int     `json:"steps"`
	Draws     int     `json:"draws"`
	TV        float64 `json:"tv"`
	Floor     float64 `json:"tv_noise_floor"`
	HeadWorst float64 `json:"head_worst_relative_error"`
	// Mass is samplers.AuditSummary.Mass (0 in the records of runs made before it existed).
	Mass float64 `json:"declared_mass,omitempty"`
	// QUndefined says that the sampler has no probability law: TV, Floor and HeadWorst are 0.
	QUndefined bool `json:"q_undefined,omitempty"`
	// Checked says that the run checked its declarations step by step and item by item
	// (samplers.Audit.Check; false in the records of runs made before it existed), and Failure
	// is the first declaration that check refuted ("" if none).
	Checked bool   `json:"checked,omitempty"`
	Failure string `json:"failure,omitempty"`
}

// plannedRun is one cell of the grid with its resolved config.
type plannedRun struct {
	cell
	cfg       *Config
	hash      string // of the run's config (without [plots])
	trainHash string // of what its training depends on
	dir       string
}

// plan expands the grid and resolves every run's config before anything runs, so that a bad
// axis key or value is reported at once.
func plan(raw, cfg *Config) ([]plannedRun, error) {
	cells, err := expand(cfg.Ablation, cfg.Seeds)
	if err != nil {
		return nil, err
	}
	runs := make([]plannedRun, len(cells))
	for i, c := range cells {
		rc, err := cellConfig(raw, c)
		if err != nil {
			return nil, err
		}
		h, err := rc.hash()
		if err != nil {
			return nil, err
		}
		th, err := rc.trainHash()
		if err != nil {
			return nil, err
		}
		if len(c.ID) > maxName {
			return nil, fmt.Errorf("run %.60s…: its id is %d bytes, longer than a folder's name may be (%d): give the axes shorter values",
				c.ID, len(c.ID), maxName)
		}
		dir := filepath.Join(cfg.Out, "runs", c.ID)
		if err := noLinks(dir); err != nil {
			return nil, fmt.Errorf("run %s: %w", c.ID, err)
		}
		runs[i] = plannedRun{cell: c, cfg: rc, hash: h, trainHash: th, dir: dir}
	}
	return runs, nil
}

// maxName is the longest name of a file or folder on the common file systems (NAME_MAX of
// ext4, XFS, APFS, NTFS in characters): a run's folder is named by its id.
const maxName = 255

// finished reads the run's record if the run finished with this very config and its record is
// not stale (staleBaselines).
func (r plannedRun) finished() (*runRecord, error) {
	rec, err := r.record()
	if rec == nil || rec.ConfigHash != r.hash || rec.staleBaselines(r.cfg) {
		return nil, err
	}
	return rec, nil
}

// staleBaselines reports a record of a run evaluated under eval.filter whose sanity baselines
// were not: recorded before the baselines were filtered as the run's rankings are (it has no
// random baseline), they ranked each user's own items among the most popular. Such a run is
// evaluated again from its saved model.
func (rec *runRecord) staleBaselines(cfg *Config) bool {
	return cfg.Eval.Filter.Excludes() && len(rec.MostPopular) > 0 && rec.Random == nil
}

// trained reads the run's record if the run trained with this very training config (its
// evaluation may differ) and its saved model is there.
func (r plannedRun) trained() (*runRecord, error) {
	rec, err := r.record()
	if rec == nil || rec.TrainHash != r.trainHash {
		return nil, err
	}
	if _, err := os.Stat(r.modelPath()); err != nil {
		return nil, nil
	}
	return rec, nil
}

// record reads the run's metrics.json, nil if there is none. A record that does not parse (a
// file damaged outside the workbench, which writes it atomically) is no record: the run is not
// finished and runs again (see tornRecord).
func (r plannedRun) record() (*runRecord, error) {
	var rec runRecord
	err := readJSON(filepath.Join(r.dir, "metrics.json"), &rec)
	if errors.Is(err, fs.ErrNotExist) || r.tornRecord() != nil {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// tornRecord returns the error of parsing the run's metrics.json, nil when it parses into a
// record or is not there. JSON without a run's identity (no id or config_hash, as
// in {} or null) is no record either.
func (r plannedRun) tornRecord() error {
	b, err := os.ReadFile(filepath.Join(r.dir, "metrics.json"))
	if err != nil {
		return nil
	}
	var rec runRecord
	err = json.Unmarshal(b, &rec)
	if err == nil && (rec.ID == "" || rec.ConfigHash == "") {
		err = errors.New("no id or config_hash: not a run's record")
	}
	if err != nil {
		return fmt.Errorf("%s is unreadable (%v): the run is not finished and runs again", filepath.Join(r.dir, "metrics.json"), err)
	}
	return nil
}

// axes are the run's axis values as its record writes them.
func (r plannedRun) axes() map[string]string {
	out := map[string]string{}
	for _, st := range r.Settings {
		out[st.Key] = axisValue(st.Key, st.Value)
	}
	return out
}

// modelPath is where the run saves its trained parameters.
func (r plannedRun) modelPath() string { return filepath.Join(r.dir, "model.bin") }

// runFunc performs one run, writing its own files into its directory, and returns its record
// (without the identity fields, which the scheduler fills).
type runFunc func(ctx context.Context, r plannedRun, progress io.Writer) (*runRecord, error)

// selected returns the runs of the grid this invocation is about: those of its shard (by
// position in the grid's order) that match -only (when only).
func selected(runs []plannedRun, o options, only bool) []plannedRun {
	var out []plannedRun
	for i, r := range runs {
		if o.shard.has(i) && (!only || o.only == nil || o.only.MatchString(r.ID)) {
			out = append(out, r)
		}
	}
	return out
}

// schedule runs the selected runs that are not finished (all with force), jobs at a time, and
// writes each one's metrics.json as it finishes. Each run is claimed first (see claimRun): a run
// another process holds is left to it while the others run; then the process waits for the runs
// so held, looking at their claims every o.claims.poll with a progress line, and trains each one
// whose claim is released without a result or goes stale, for at most o.claims.wait. So no two
// processes train the same run, and schedule never returns nil with a selected run unfinished:
// runs still held when the wait ends are named in the error. The first failure stops the others;
// finished runs are kept, so running the same command again resumes. length gives each run's
// relative length (its training work) for the time left; nil counts every run the same. With
// more than one job, the longest runs start first (Graham's LPT rule), so that no long run is
// left for the end while the other cores idle; runs of equal length keep the grid's order.
func schedule(ctx context.Context, runs []plannedRun, o options, stdout io.Writer, do runFunc, length func(plannedRun) float64) error {
	if length == nil {
		length = func(plannedRun) float64 { return 1 }
	}
	var todo []plannedRun
	finished := 0
	for _, r := range selected(runs, o, true) {
		if err := r.tornRecord(); err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", r.ID, err)
		}
		if !o.force {
			rec, err := r.finished()
			if err != nil {
				return err
			}
			if rec != nil {
				finished++
				continue
			}
		}
		if err := r.checkReuse(o.force); err != nil {
			return err
		}
		todo = append(todo, r)
	}
	fmt.Fprintln(stdout, countLine(runs, o, finished, len(todo)))
	if len(todo) == 0 {
		return nil
	}
	s := &scheduler{o: o, stdout: stdout, do: do, length: length, todo: todo,
		states: make([]runState, len(todo)), recs: make([]*runRecord, len(todo)), begin: time.Now()}
	pending := make([]int, len(todo))
	for i := range pending {
		pending[i] = i
	}
	if o.jobs > 1 {
		slices.SortStableFunc(pending, func(a, b int) int { return cmp.Compare(length(todo[b]), length(todo[a])) })
	}
	deadline := time.Now().Add(o.claims.wait)
	var said string
	var saidAt time.Time
	for {
		held, err := s.round(ctx, pending)
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if err != nil || ctx.Err() != nil {
			return fmt.Errorf("interrupted after %d of %d runs; run the same command again to resume", s.done, len(todo))
		}
		if len(held) == 0 {
			return nil
		}
		pending = pending[:0]
		var names []string
		for i, h := range held {
			pending = append(pending, i)
			names = append(names, fmt.Sprintf("%s (%s)", todo[i].ID, h))
		}
		slices.Sort(pending)
		slices.Sort(names)
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%d runs left unfinished, held by other processes for more than %s: %s; run the same command again once they have finished, or after %s without a touch of their claims",
				len(names), o.claims.wait, strings.Join(names, ", "), o.claims.stale)
		}
		if line := strings.Join(names, ", "); line != said || time.Since(saidAt) >= waitLineEvery {
			fmt.Fprintf(stdout, "waiting for %d runs held by other processes until they finish or their claims go stale (%s without a touch), at most %s more: %s\n",
				len(names), o.claims.stale, left.Round(time.Second), line)
			said, saidAt = line, time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("interrupted after %d of %d runs; run the same command again to resume", s.done, len(todo))
		case <-time.After(min(o.claims.poll, left)):
		}
	}
}

// countLine is the line that says what a schedule is about to do: how many of the grid's runs
// are this invocation's (its shard's, those -only selects), how many of those are finished and
// how many it runs, and, under -only, how many it leaves out and how many of those are finished.
func countLine(runs []plannedRun, o options, finished, todo int) string {
	what := plural(len(runs), "run")
	if o.shard.sharded() {
		what = fmt.Sprintf("%s: %d of %s", o.shard, len(selected(runs, o, false)), what)
	}
	if o.only != nil {
		sel := len(selected(runs, o, true))
		out, outFinished := 0, 0
		for _, r := range selected(runs, o, false) {
			if !o.only.MatchString(r.ID) {
				out++
				if r.isFinished() {
					outFinished++
				}
			}
		}
		what = fmt.Sprintf("%s, %d selected by -only (%d left out, %d of them finished)", what, sel, out, outFinished)
	}
	return fmt.Sprintf("%s: %d already finished, %d to run, %d at a time", what, finished, todo, o.jobs)
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// waitLineEvery is how often the progress line of a wait for held runs is repeated when they stay
// the same.
const waitLineEvery = time.Minute

// scheduler is the state of one schedule call.
type scheduler struct {
	o      options
	stdout io.Writer
	do     runFunc
	length func(plannedRun) float64
	todo   []plannedRun
	begin  time.Time

	mu              sync.Mutex
	done, elsewhere int
	states          []runState
	recs            []*runRecord
}

// round claims and runs the runs of s.todo at the positions pending, o.jobs at a time. It returns
// the owners of the live claims of other processes that kept some of them from running, by
// position.
func (s *scheduler) round(ctx context.Context, pending []int) (map[int]owner, error) {
	held := map[int]owner{}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.o.jobs)
	for _, i := range pending {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			h, err := s.run(gctx, i)
			if h != nil {
				s.mu.Lock()
				held[i] = *h
				s.mu.Unlock()
			}
			return err
		})
	}
	err := g.Wait()
	return held, err
}

// run claims and runs s.todo[i], unless another process holds it (its owner is returned) or
// finished it meanwhile.
func (s *scheduler) run(ctx context.Context, i int) (_ *owner, err error) {
	r, o, stdout := s.todo[i], s.o, s.stdout
	c, held, err := claimRun(r.dir, o.me, o.claims)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	if c == nil {
		return held, nil
	}
	if !o.force && r.isFinished() {
		s.mu.Lock()
		s.elsewhere++
		s.states[i] = runSkipped
		fmt.Fprintf(stdout, "%s: finished by another process meanwhile\n", r.ID)
		s.mu.Unlock()
		return nil, c.release()
	}
	defer func() {
		if rerr := c.release(); err == nil && rerr != nil {
			err = fmt.Errorf("run %s: %w", r.ID, rerr)
		}
	}()
	progress := stdout
	if o.jobs > 1 {
		progress = &prefixWriter{w: stdout, mu: &s.mu, prefix: r.ID + ": "}
	}
	start := time.Now()
	rec, err := s.do(ctx, r, progress)
	if err == nil {
		rec.ID, rec.Group, rec.Seed, rec.ConfigHash, rec.TrainHash = r.ID, r.Group, r.Seed, r.hash, r.trainHash
		rec.Axes = r.axes()
		err = writeJSON(filepath.Join(r.dir, "metrics.json"), rec)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	s.states[i], s.recs[i] = runDone, rec
	elapsed := time.Since(s.begin)
	left := timeLeft(elapsed, s.todo, s.states, s.recs, s.length)
	fmt.Fprintf(stdout, "[%d/%d] %s finished in %s (all: %s so far, about %s left)\n", s.done+s.elsewhere, len(s.todo), r.ID,
		time.Since(start).Round(time.Second/10), elapsed.Round(time.Second), left.Round(time.Second))
	return nil, nil
}

// checkReuse refuses to train a run into a folder that holds a run of another cell: a record
// whose axis values are not this run's is a run of another config's grid whose id is the same
// (a results folder admits configs whose axes differ), and not even -force replaces it. Without
// force, a run of this cell trained with other settings (a folder edited by hand) is refused too.
func (r plannedRun) checkReuse(force bool) error {
	rec, err := r.record()
	if err != nil || rec == nil {
		return err
	}
	if mine := r.axes(); !maps.Equal(rec.Axes, mine) {
		return fmt.Errorf("run %s: %s holds a run of another grid (axes %s; this run's %s), which -force does not replace: choose another -out",
			r.ID, r.dir, showAxes(rec.Axes), showAxes(mine))
	}
	if force || rec.TrainHash == r.trainHash {
		return nil
	}
	return fmt.Errorf("run %s: %s holds a run trained with other settings (training hash %s, this config's %s): remove it or use -force",
		r.ID, r.dir, rec.TrainHash, r.trainHash)
}

// showAxes writes axis values as key=value, sorted.
func showAxes(axes map[string]string) string {
	if len(axes) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(axes)) {
		parts = append(parts, k+"="+axes[k])
	}
	return strings.Join(parts, ", ")
}

// runState is where a run of a schedule stands.
type runState int8

const (
	runPending runState = iota // waiting or running
	runDone
	runSkipped // held or finished by another process
)

// timeLeft extrapolates the time the pending runs take from the time elapsed for the done ones
// (recs holds their records). A run's work is its training, in proportion to its own length
// (training steps), plus its evaluation, the same for every run: the done runs' records tell the
// seconds of each per step and per run; of a done run's training, only the part this process did
// counts (the steps after a checkpoint it resumed from, none for a saved model evaluated again). The time left is the elapsed time scaled by the pending
// work over the done work, which keeps parallel runs and one-off costs (loading data) in
// proportion. So a grid sweeping the number of epochs is not estimated from the mean of its
// first, short, runs. Every length is taken now, so that one learned meanwhile (the data's size,
// once loaded) counts for the done and the pending runs alike. Records without times count
// training steps alone.
func timeLeft(elapsed time.Duration, runs []plannedRun, states []runState, recs []*runRecord, length func(plannedRun) float64) time.Duration {
	var doneSteps, pendingSteps, trainSecs, evalSecs float64
	var doneRuns, pendingRuns int
	for i, r := range runs {
		switch states[i] {
		case runDone:
			doneSteps += length(r) * recs[i].here.fraction
			doneRuns++
			trainSecs += recs[i].here.seconds
			evalSecs += recs[i].EvalSeconds
		case runPending:
			pendingSteps += length(r)
			pendingRuns++
		}
	}
	if doneSteps <= 0 || pendingRuns == 0 {
		return 0
	}
	perStep, perRun := 1.0, 0.0
	if trainSecs+evalSecs > 0 {
		perStep, perRun = trainSecs/doneSteps, evalSecs/float64(doneRuns)
	}
	doneWork := doneSteps*perStep + float64(doneRuns)*perRun
	pendingWork := pendingSteps*perStep + float64(pendingRuns)*perRun
	return time.Duration(float64(elapsed) * pendingWork / doneWork)
}

// isFinished reports whether the run has a record of this very config (a read error counts as
// not finished: the run is then done again).
func (r plannedRun) isFinished() bool {
	rec, err := r.finished()
	return err == nil && rec != nil
}

// runNote writes a line about run id to its progress writer with the id in front, once: the
// prefixWriter of parallel runs already puts it there.
func runNote(progress io.Writer, id, format string, args ...any) {
	line := fmt.Sprintf(format, args...) + "\n"
	if _, labelled := progress.(*prefixWriter); !labelled {
		line = id + ": " + line
	}
	io.WriteString(progress, line)
}

// prefixWriter prefixes every line with the run id, so that parallel runs' progress lines stay
// readable; it is not a terminal, so trainers print plain lines to it.
type prefixWriter struct {
	w      io.Writer
	mu     *sync.Mutex
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\n\r")
		if i < 0 {
			return len(b), nil
		}
		line := p.buf[:i]
		if len(bytes.TrimSpace(line)) > 0 {
			p.mu.Lock()
			fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
			p.mu.Unlock()
		}
		p.buf = p.buf[i+1:]
	}
}

// records reads the records of every finished run of the grid, in grid order.
func records(runs []plannedRun) ([]*runRecord, error) {
	var out []*runRecord
	for _, r := range runs {
		rec, err := r.finished()
		if err != nil {
			return nil, err
		}
		if rec != nil {
			out = append(out, rec)
		}
	}
	return out, nil
}
