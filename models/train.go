package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/internal/distinct"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/tape"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// Point is one point of the training curve.
type Point struct {
	Step  int     // global step (1-based) ending the interval
	Epoch int     // epoch (1-based) of that step
	Loss  float64 // mean training loss over the steps of the interval
	// ExamplesPerSec is the training throughput over the interval (wall clock): the rows with a
	// positive trained per second (examples; with SASRec, the windows' non-padded positions).
	ExamplesPerSec float64
	// Temperature is the loss's τ at the step: the learned value with
	// losses.Settings.LearnTemperature, else the fixed one (0 for a loss without τ).
	Temperature float64
}

// Curve is the training curve: one Point every TrainSettings.LogEvery steps and one at the
// last step.
type Curve []Point

// Train trains m on ds.Train with the loss ls and the sampler ss and returns the training curve.
//
// Every step takes the next B interactions (B = ts.BatchSize) in the order ts.Order (with a
// model whose query is SASRec, the next B windows of the users' sequences, every position of
// which is a row: StepGeometry; with the mean encoder, each interaction's history is its
// query), asks the sampler for the step's item rows (samplers.Sampler.Draw, with the run's seeded random source of
// negatives), runs the estimator in the order of Yi et al.'s Algorithm 1 for a sampler that reads
// the positives' law (observe the batch's items at global step t, then read p̂; docs/logq.md §5),
// asks the sampler for its columns' q and p (samplers.Sampler.Declare) into the step the loss
// reads (candidates.Step), runs forward and backward in one Gorgonia tape machine and updates the
// dense weights and, row-sparsely, the embedding rows the batch used. The loss scores the
// candidates of the sampler's geometry (samplers.Build): a step scores R = Geometry.Rows(B)
// rows, each with the query of its example; a padding row (Geometry.Padded) has no loss and no
// gradient reaches its entities.
//
// The positives' law a sampler reads is p = p̂, the estimator's batch-inclusion probability, and
// q = count/N, the item's exact training frequency (N training interactions), unless the loss's
// q_source is "estimator", where q̂ = losses.DrawProb(p̂, B). A saturated p̂ = 1 then is an error
// naming the item and its count (DrawProb(1, B) = 1 would weight the item about B·q times too
// little), not a silent q̂ = 1. A sampler that reads it requires the estimator; the others do not
// use it (it may be nil). docs/samplers.md derives every built-in sampler's q and p.
//
// The step's side inputs are the sampler's (candidates.LogQ, candidates.LogP and any it declares,
// samplers.DeclareSides) and the data's: candidates.Rewards, the rows' examples' rewards (0 for a
// padding row), candidates.LogPrior, log π_j of the training label prior (datasets.LogPrior),
// and every per-item value of the dataset (datasets.Dataset.ItemValues), each at the columns'
// items and the rows' positives (a column without an item, column 0 of layout first, has the
// value of its row's positive: of the first row's, for shared columns). The step's Items is the
// corpus size M (mse_gramian weights its in-batch Gramian columns by 1/(M·q)). For an estimator implementing
// estimators.EmbeddingKeyer (lsh), the items observed and looked up are the keys of the
// current item-tower embeddings of the batch's columns (one extra forward pass of the item
// tower per step).
//
// The sampler also reads the rows' queries, each query's training items (for a sampler whose
// Shape says Seen) and the current towers run without gradient (samplers.Data.Towers: hard and
// sce rank candidates by the model's scores before the step's graph is built on their choice),
// and is checked against the data before the first step (samplers.Checker). For a loss that reads
// it (login, logout, a registered variant whose Custom says Positives), the data declares
// candidates.Positives, 1 at each column whose item is a training item of the row's query;
// login or logout on data whose every query has one training item is an error. A sampler that
// fills short rows with copies of their positive (samplers.Shape.FillsWithPositive) requires
// loss.remove_accidental_hits.
//
// Training is deterministic given seed: the same model, data, settings and seed give the same
// losses bit for bit in one build. A NaN or infinite loss or gradient stops training with an error
// naming the step, before the step's update is applied. Cancelling ctx stops training between
// steps with ctx.Err(). progress receives a live progress bar when it is a terminal and a plain
// line at most every ts.LogSeconds otherwise; nil discards it.
func Train(ctx context.Context, m *Model, ds *datasets.Dataset, est estimators.Estimator, ls losses.Settings, ss samplers.Settings, ts TrainSettings, seed int64, progress io.Writer) (Curve, error) {
	return TrainResumable(ctx, m, ds, est, ls, ss, ts, seed, "", nil, nil, progress)
}

// TrainResumable is Train with checkpoints: with a non-empty checkpointPath it writes the full
// training state to that file (atomically, with a checksum) every ts.CheckpointEvery steps (every
// epoch when 0) and after the last step, and, when the file exists as it starts, resumes from
// it. A run resumed from a checkpoint ends bit-identical to a run that was never interrupted
// (parameters, optimiser and estimator state, curve losses; ExamplesPerSec is measured anew).
//
// The checkpoint holds the parameters, the optimiser state (Adam's moments, Adagrad's
// accumulators, momentum velocities and the step count), the estimator's state (est must
// implement encoding.BinaryMarshaler and encoding.BinaryUnmarshaler, as every estimator of
// package estimators does; nil is allowed for the samplers that need none), the random-number
// states, the position in the epoch and the curve so far. It identifies its run: a checkpoint of
// other settings (model, train, loss), dtype, seed or training data is an error naming the file
// and the difference, never silently resumed; so is a corrupt one. m must be freshly built by New
// for the run (its parameters are replaced by the checkpoint's). The file is left in place after
// the last step: a caller removes it once it has saved what it needs (model.bin, metrics), so
// that a run killed in between resumes without training again.
//
// A non-nil audit records every step's declarations and draws (samplers.Audit.Observe); a
// resumed run records the steps trained after the checkpoint only.
//
// With ts.ValidateEvery, sel is the model selection on ds.Valid (it must not be nil; see
// Selection): every ValidateEvery epochs and after the last step the model is evaluated on the
// validation set, training stops early after ts.Patience validations without a better score, and
// the model m ends with the parameters of the best validation, which checkpoints keep beside the
// current ones (a resumed run keeps its best so far and its count of validations since). sel
// receives the validations and the one selected.
func TrainResumable(ctx context.Context, m *Model, ds *datasets.Dataset, est estimators.Estimator, ls losses.Settings, ss samplers.Settings, ts TrainSettings, seed int64, checkpointPath string, audit *samplers.Audit, sel *Selection, progress io.Writer) (Curve, error) {
	if err := ts.Resolve(); err != nil {
		return nil, err
	}
	if err := sel.check(ts, ds); err != nil {
		return nil, err
	}
	smp, g, err := samplers.Build(ss)
	if err != nil {
		return nil, fmt.Errorf("sampler.%w", err)
	}
	if ds.Queries != m.towers[sideQuery].n || ds.Items != m.towers[sideItem].n {
		return nil, fmt.Errorf("models: dataset %q has %d queries and %d items, the model was built for %d and %d",
			ds.Name, ds.Queries, ds.Items, m.towers[sideQuery].n, m.towers[sideItem].n)
	}
	for i, a := range ds.Train {
		switch {
		case a.Query < 0 || int(a.Query) >= ds.Queries:
			return nil, fmt.Errorf("models: train[%d]: query %d out of range [0, %d)", i, a.Query, ds.Queries)
		case a.Item < 0 || int(a.Item) >= ds.Items:
			return nil, fmt.Errorf("models: train[%d]: item %d out of range [0, %d)", i, a.Item, ds.Items)
		case math.IsNaN(float64(a.Reward)) || math.IsInf(float64(a.Reward), 0):
			return nil, fmt.Errorf("models: train[%d]: reward %v", i, a.Reward)
		case a.Reward < 0:
			return nil, fmt.Errorf("models: train[%d]: reward %v is negative (rewards weight the loss, Yi et al. eq. 4: r ∈ [0, 1])", i, a.Reward)
		}
	}
	rows, err := newStepRows(m.s, ds)
	if err != nil {
		return nil, err
	}
	if rows.positions() && ts.Order == OrderSequential {
		return nil, fmt.Errorf("order: %q replays the training pairs in time order, and SASRec trains windows of each user's pairs (shuffled); use order %q", OrderSequential, OrderShuffled)
	}
	if g, err = rows.geometry(g); err != nil {
		return nil, fmt.Errorf("sampler.%w", err)
	}
	loss, err := trainLoss(m, ls, g)
	if err != nil {
		return nil, err
	}
	if n := rows.units; n < ts.BatchSize {
		what := "training interactions"
		if rows.positions() {
			what = "windows of SASRec's training"
		}
		return nil, fmt.Errorf("batch_size: %d exceeds the %d %s of %q", ts.BatchSize, n, what, ds.Name)
	}
	var ck checkpointing
	if checkpointPath == "" && ts.CheckpointEvery > 0 {
		return nil, fmt.Errorf("checkpoint_every: %d, but this training writes no checkpoints (no checkpoint file)", ts.CheckpointEvery)
	}
	if checkpointPath != "" {
		ck = checkpointing{path: checkpointPath, id: newRunIdentity(m, ds, ls, ss, ts, seed, sel)}
	}
	if m.dt == tensor.Float64 {
		return train[float64](ctx, m, ds, est, loss, smp, ts, seed, ck, audit, sel, progress)
	}
	return train[float32](ctx, m, ds, est, loss, smp, ts, seed, ck, audit, sel, progress)
}

func train[T float](ctx context.Context, m *Model, ds *datasets.Dataset, est estimators.Estimator, loss *losses.Loss, smp samplers.Sampler, ts TrainSettings, seed int64, ck checkpointing, audit *samplers.Audit, sel *Selection, progress io.Writer) (Curve, error) {
	tr, err := newTrainer[T](m, ds, est, loss, smp, ts, seed, towerFused)
	if err != nil {
		return nil, err
	}
	tr.audit = audit
	// The optimiser's state (Adam: two more copies of every table) is not needed once training
	// returns; dropping it here frees it for the evaluation that follows even while the model
	// or the Gorgonia graph built on its parameters keeps the trainer reachable.
	defer tr.opt.release()
	l := &loop{order: make([]int32, tr.rows.units), shuffle: rand.NewPCG(uint64(seed), 0x73687566666c65), // "shuffle"
		sel: newSelecting(m, ts, sel)}
	for i := range l.order {
		l.order[i] = int32(i)
	}
	if ts.Order == OrderSequential {
		slices.SortStableFunc(l.order, func(a, b int32) int {
			x, y := ds.Train[a], ds.Train[b]
			return cmp.Or(cmp.Compare(x.Day, y.Day), cmp.Compare(x.Time, y.Time))
		})
	}
	if ck.path != "" {
		if _, err := stateOf(est); err != nil {
			return nil, err
		}
		if err := resume(ck.path, ck.id, tr, l); err != nil {
			return nil, err
		}
	}
	shuffle := rand.New(l.shuffle)
	perEpoch := tr.rows.units / ts.BatchSize
	total := ts.Steps
	if total == 0 {
		total = ts.Epochs * perEpoch
	}
	if msg := l.sel.idlePatience(perEpoch, total); msg != "" && progress != nil && l.step == 0 {
		fmt.Fprintf(progress, "warning: %s\n", msg)
	}
	rep := newReporter(progress, total, ts.BatchSize, ts.LogSeconds, l.step)
	defer rep.close()

	mark, rows := time.Now(), 0
	for step := l.step + 1; step <= total && !l.sel.Stopped; step++ {
		if err := ctx.Err(); err != nil {
			return l.curve, err
		}
		epoch := (step-1)/perEpoch + 1
		k := (step - 1) % perEpoch
		if k == 0 && ts.Order == OrderShuffled {
			shuffle.Shuffle(len(l.order), func(i, j int) { l.order[i], l.order[j] = l.order[j], l.order[i] })
		}
		batch := tr.compose(ds, l.order[k*ts.BatchSize:(k+1)*ts.BatchSize])
		rows += tr.valid(batch)
		loss, err := tr.step(int64(step), batch)
		if nf := (*NonFiniteError)(nil); errors.As(err, &nf) {
			nf.Step, nf.Epoch = step, epoch
			return l.curve, nf
		}
		if err != nil {
			return l.curve, fmt.Errorf("models: step %d (epoch %d): %w", step, epoch, err)
		}
		l.step = step
		l.sum += loss
		l.since++
		rep.step(step, loss)
		if l.sel.due(step, perEpoch, total) {
			if err := l.sel.validate(ctx, m, ds, step, epoch, rep); err != nil {
				return l.curve, err
			}
		}
		last := step == total || l.sel.Stopped
		if step%ts.LogEvery == 0 || last && l.since > 0 {
			now := time.Now()
			p := Point{Step: step, Epoch: epoch, Loss: l.sum / float64(l.since),
				ExamplesPerSec: float64(rows) / now.Sub(mark).Seconds(), Temperature: tr.temperature()}
			l.curve = append(l.curve, p)
			rep.point(p, last)
			l.sum, l.since, mark, rows = 0, 0, now, 0
		}
		if ck.due(step, perEpoch, total, ts.CheckpointEvery) || ck.path != "" && l.sel.Stopped {
			if err := writeCheckpoint(ck.path, ck.id, tr, l); err != nil {
				return l.curve, err
			}
		}
	}
	l.sel.finish(m, sel)
	return l.curve, nil
}

// checkpointing says where and for which run training writes checkpoints (no path: none).
type checkpointing struct {
	path string
	id   runIdentity
}

// due says whether a checkpoint is written after step: every `every` steps (every epoch when
// every is 0) and after the last step.
func (c checkpointing) due(step, perEpoch, total, every int) bool {
	if c.path == "" {
		return false
	}
	if every == 0 {
		every = perEpoch
	}
	return step%every == 0 || step == total
}

// trainer holds the training graph of one run and everything a step reuses.
type trainer[T float] struct {
	m     *Model
	est   estimators.Estimator
	keyer estimators.EmbeddingKeyer
	smp   samplers.Sampler
	shape samplers.Shape
	g     candidates.Geometry // the steps': the sampler's, with SASRec a row per position; named
	data  samplers.Data
	pos   []int32         // the batch's positive items, one per example (with SASRec, per row)
	law   samplers.Law    // the positives' law from the estimator (shape.PositiveLaw)
	audit *samplers.Audit // records every step's declarations and draws (nil: none)
	b     int             // batch size: the examples of a step
	r     int             // the step's score rows, g.Rows(b)
	rows  *stepRows       // what the steps are made of: training pairs or SASRec's windows

	// SASRec (m.enc): the encoder's nodes in the training graph, the step's input windows (b×L)
	// and, per row, its target and training pair (composed by compose).
	seq             *sasrecNodes[T]
	seqIn           Window
	targets, events []int32
	// The mean encoder: each query row's history (r×L), composed by compose.
	hist     *Window
	batch    []datasets.Interaction // compose's rows
	items    int
	obs      []uint64   // the keys of the valid rows' positives, which the estimator observes
	logFreq  []float64  // per item: log(count/N), the exact per-draw q̂ of in-batch sampling
	itemSide []itemSide // the data's per-item side inputs: log π and the dataset's ItemValues
	qFromEst bool       // q̂ = DrawProb(p̂, B) (q_source = "estimator") rather than count/N
	negRNG   *rand.Rand
	negSrc   *rand.PCG // negRNG's source, whose state checkpoints save

	vm  gorgonia.VM
	x   [2][]T     // tower inputs: the backing arrays of the graph's input nodes
	ids [2][]int32 // entity of each query row and item row of the step (NoItem: a padding row's positive)
	// inRows are ids with each padding row's NoItem replaced by an item the step has (padItem),
	// which the towers can compute and whose gradient is zero: ids itself without padding.
	inRows  [2][]int32
	padItem int32
	// towerIDs is the entity of each tower input row: inRows, except that with distinct the item
	// tower runs once per distinct item of the step (the first nDistinct rows; the rest repeat
	// the first and are never read) and rowOf maps each item row to its tower row.
	towerIDs [2][]int32
	// scatterQ are the query rows whose gradients are scattered into the tables: ids, with
	// NoItem at the padding rows (nil without padding).
	scatterQ  []int32
	distinct  bool
	nDistinct int
	rowOf     []int32
	lister    distinct.Lister
	rep       [2]*repeats       // per side: the rows that repeat an entity (nil: not looked for)
	dx        [2]*gorgonia.Node // gradient w.r.t. the tower inputs (nil for a side without fields)
	outs      [2]*gorgonia.Node // the towers' normalised outputs
	dense     []*param
	denseGrad []*gorgonia.Node
	lossNode  *gorgonia.Node
	st        *candidates.Step // the sampler writes its declarations into it, the loss reads it
	known     *knownPositives  // fills the data's side input candidates.Positives (nil: not declared)

	grads []*rowGrad[T] // per embedding table
	opt   *optimizer[T]
	clip  float64

	keys []uint64 // estimator keys of the item rows
	tau  float64  // the loss's fixed τ (without a learned one)
	impl towerImpl
	keyf *inference[T] // the item tower's inference graph of the estimator keys
	emb  []float32
}

// newTrainer builds the trainer of one run; impl is towerFused except in tests.
func newTrainer[T float](m *Model, ds *datasets.Dataset, est estimators.Estimator, loss *losses.Loss, smp samplers.Sampler, ts TrainSettings, seed int64, impl towerImpl) (*trainer[T], error) {
	ls := loss.Settings()
	tr := &trainer[T]{
		m: m, est: est, smp: smp, shape: smp.Shape(), g: loss.Geometry(), b: ts.BatchSize, items: ds.Items,
		negSrc: rand.NewPCG(uint64(seed), 0x6e65676174697665), // "negative"
		opt:    newOptimizer[T](ts, m.params()), clip: ts.Clip, impl: impl, tau: ls.Temperature,
	}
	tr.negRNG = rand.New(tr.negSrc)
	var err error
	if tr.rows, err = newStepRows(m.s, ds); err != nil {
		return nil, err
	}
	g, err := tr.rows.geometry(tr.shape.Geometry)
	if g.Sampler = tr.g.Sampler; err != nil || g != tr.g {
		return nil, fmt.Errorf("models: the loss was made for %v, the steps of this model and sampler are %v (%v)", tr.g, g, err)
	}
	tr.shape.Geometry = tr.g
	if err := tr.g.Check(); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	if tr.shape.PositiveLaw && est == nil {
		return nil, fmt.Errorf("models: sampler %s reads the positives' law and needs an estimator of p̂", tr.g.Sampler)
	}
	if k, ok := est.(estimators.EmbeddingKeyer); ok {
		tr.keyer = k
	}
	if ds.Items < 1 {
		return nil, errors.New("models: the dataset has no items")
	}
	b := tr.b
	tr.r = tr.g.Rows(b)
	// A sampler sees the rows' positives: the examples', or with SASRec the positions' (each
	// position a row of its own, padding NoItem), with the law of the rows' positives.
	tr.data = samplers.Data{Items: ds.Items, Batch: tr.b, Counts: tr.rows.counts, N: tr.rows.n}
	tr.pos = make([]int32, b)
	if tr.rows.positions() {
		tr.data.Batch = tr.rows.perStep(b)
		tr.pos = make([]int32, tr.r)
		tr.seqIn = Window{Rows: b, Len: tr.rows.length, Items: make([]int32, b*tr.rows.length)}
		tr.targets, tr.events = make([]int32, tr.r), make([]int32, tr.r)
	}
	if m.towers[sideQuery].history != nil {
		tr.hist = &Window{Rows: tr.r, Len: tr.rows.length, Items: make([]int32, tr.r*tr.rows.length)}
	}
	tr.qFromEst = ls.QSource == losses.QSourceEstimator
	tr.logFreq = make([]float64, ds.Items)
	for j, c := range tr.data.Counts {
		tr.logFreq[j] = math.Log(float64(c) / float64(tr.data.N))
	}
	for _, p := range m.tables {
		tr.grads = append(tr.grads, newRowGrad[T](p.shape[0], p.shape[1]))
	}

	itemRows := tr.g.ItemRows(tr.r, ds.Items)
	tr.ids = [2][]int32{make([]int32, tr.r), make([]int32, itemRows)}
	tr.inRows = tr.ids
	if tr.g.Padded || tr.g.Unfilled {
		tr.inRows = [2][]int32{tr.ids[sideQuery], make([]int32, itemRows)}
	}
	if tr.g.Padded {
		tr.scatterQ = make([]int32, tr.r)
		tr.obs = make([]uint64, 0, tr.r)
	}
	tr.towerIDs = tr.inRows
	// A step that draws more item rows than the corpus has items (each row's own draws over a
	// small corpus) repeats items: the item tower then runs once per distinct item, at most M
	// rows. Memory rows are held constant and keep their own tower rows.
	if tr.distinct = itemRows > ds.Items && tr.g.Memory == 0 && tr.g.Layout != candidates.Corpus; tr.distinct {
		tr.towerIDs[sideItem] = make([]int32, ds.Items)
		tr.rowOf = make([]int32, itemRows)
	}
	tr.keys = make([]uint64, itemRows)
	st, err := newStep(tr.g, b, ds, smp)
	if err != nil {
		return nil, err
	}
	tr.st = st
	if err := tr.prepareMining(ds, ls); err != nil {
		return nil, err
	}
	if tr.itemSide, err = dataSides(ds, tr.data.Counts); err != nil {
		return nil, err
	}
	tr.law = tr.positiveLaw
	return tr, tr.build(loss)
}

// newStep returns the step of a run: the geometry g's candidates for b examples over ds's items,
// with the side inputs of their producers declared: the sampler's, then the data's (the rows'
// rewards, the prior and the dataset's per-item values). A name two producers declare is an
// error naming both.
func newStep(g candidates.Geometry, b int, ds *datasets.Dataset, smp samplers.Sampler) (*candidates.Step, error) {
	st := candidates.NewStep(g, b, ds.Items)
	if err := samplers.DeclareSides(smp, st); err != nil {
		return nil, fmt.Errorf("sampler.%w", err)
	}
	sides := []candidates.Side{{Name: candidates.Rewards, Kind: candidates.PerRow, By: "data"},
		{Name: candidates.LogPrior, By: "data"}}
	for _, name := range slices.Sorted(maps.Keys(ds.ItemValues)) {
		sides = append(sides, candidates.Side{Name: name, By: "data"})
	}
	for _, sd := range sides {
		if err := st.Declare(sd); err != nil {
			return nil, fmt.Errorf("models: dataset %q: %w", ds.Name, err)
		}
	}
	return st, nil
}

// itemSide is a per-item side input of the data: its name and its value for every item.
type itemSide struct {
	name   string
	values []float64
}

// dataSides are the data's per-item side inputs: the training label prior (datasets.LogPrior of
// counts) and the dataset's ItemValues, in newStep's order, each checked to have a value per
// item.
func dataSides(ds *datasets.Dataset, counts []int64) ([]itemSide, error) {
	out := []itemSide{{candidates.LogPrior, datasets.LogPrior(counts)}}
	for _, name := range slices.Sorted(maps.Keys(ds.ItemValues)) {
		v := ds.ItemValues[name]
		if len(v) != ds.Items {
			return nil, fmt.Errorf("models: dataset %q: item values %s has %d values for %d items", ds.Name, name, len(v), ds.Items)
		}
		out = append(out, itemSide{name, v})
	}
	return out, nil
}

// temperature returns the loss's current τ.
func (tr *trainer[T]) temperature() float64 {
	if tau, ok := tr.m.Temperature(); ok {
		return tau
	}
	return tr.tau
}

// build constructs the training graph: both towers on their input matrices, the score matrix,
// the loss and the gradients of every dense weight and of the tower inputs.
func (tr *trainer[T]) build(loss *losses.Loss) error {
	m := tr.m
	g := gorgonia.NewGraph()
	var outs [2]*gorgonia.Node
	var wrt gorgonia.Nodes
	var inputs [2]*gorgonia.Node
	for side, t := range m.towers {
		if side == sideQuery && m.enc != nil { // SASRec: the hidden state at every position
			n, err := sasrecFwd[T](m.enc, g, tr.b, tr.rows.length, tr.impl, true)
			if err != nil {
				return err
			}
			tr.seq, outs[side], inputs[side] = n, n.out, n.x
			wrt = append(wrt, n.params...)
			tr.dense = append(tr.dense, n.of...)
			continue
		}
		rows := len(tr.towerIDs[side])
		// Rows of a step that repeat an entity are computed once, unless the tower already
		// runs once per distinct item (distinct, the corpus layout) or a query's history
		// makes its rows differ.
		if t.history == nil && (side == sideQuery || !tr.distinct && tr.g.Layout != candidates.Corpus) {
			tr.rep[side] = newRepeats(t.n, rows)
		}
		tn, err := fwd[T](m, t, g, rows, tr.impl, len(t.fields) > 0, tr.rep[side])
		if err != nil {
			return err
		}
		tr.x[side] = tn.xData.([]T)
		outs[side] = tn.out
		wrt = append(wrt, tn.params...)
		tr.dense = append(tr.dense, tn.of...)
		if len(t.fields) > 0 {
			inputs[side] = tn.x
		}
	}
	tr.outs = outs
	var idx *[]int32 // with distinct, the item rows are read from the tower's distinct rows
	if tr.distinct {
		idx = &tr.rowOf
	}
	scores, err := gorgonia.ApplyOp(newScores[T](tr.g, tr.r, idx), outs[sideQuery], outs[sideItem])
	if err != nil {
		return err
	}
	var logTau *gorgonia.Node
	if m.logTau != nil {
		var lt *gorgonia.Node
		if logTau, lt, err = logTemperatureNode[T](m, g); err != nil {
			return err
		}
		wrt = append(wrt, lt)
		tr.dense = append(tr.dense, m.logTau)
	}
	nDense := len(wrt)
	for _, x := range inputs {
		if x != nil {
			wrt = append(wrt, x)
		}
	}
	if tr.lossNode, err = loss.Node(losses.Inputs{Scores: scores, U: outs[sideQuery], V: outs[sideItem], LogTemperature: logTau}, tr.st); err != nil {
		return err
	}
	grads, err := gorgonia.Grad(tr.lossNode, wrt...)
	if err != nil {
		return fmt.Errorf("models: differentiating the training graph: %w", err)
	}
	tr.denseGrad = grads[:nDense]
	k := nDense
	for side, x := range inputs {
		if x != nil {
			tr.dx[side] = grads[k]
			k++
		}
	}
	if tr.vm, err = tape.Machine(g, append([]*gorgonia.Node{tr.lossNode}, grads...)...); err != nil {
		return fmt.Errorf("models: the training graph: %w", err)
	}
	return nil
}

// step runs one training step at global step t on batch (len B) and returns its loss.
func (tr *trainer[T]) step(t int64, batch []datasets.Interaction) (float64, error) {
	l, err := tr.forwardBackward(t, batch)
	if err != nil {
		return l, err
	}
	return l, tr.apply()
}

// compose returns the rows of the step whose units are idx (len B) and fills the encoders'
// inputs: the training pairs idx, each with its history (the mean encoder: the last L training
// items of its user before it, left-padded); or with SASRec the windows idx, each window's input
// sequence into seqIn and each of its positions a row (its target and training pair, the
// padding positions a row of the window's user without positive, Item = NoItem).
func (tr *trainer[T]) compose(ds *datasets.Dataset, idx []int32) []datasets.Interaction {
	if !tr.rows.positions() {
		tr.batch = tr.batch[:0]
		for _, i := range idx {
			tr.batch = append(tr.batch, ds.Train[i])
		}
		if w := tr.hist; w != nil {
			for r := range w.Rows {
				datasets.PadLeft(w.Items[r*w.Len:(r+1)*w.Len], ds.History(datasets.PartTrain, int(idx[tr.g.Example(r)]), w.Len))
			}
		}
		return tr.batch
	}
	L := tr.rows.length
	tr.batch = reuse.Grow(tr.batch, tr.r)
	for k, u := range idx {
		at := k * L
		tr.rows.win.Fill(int(u), tr.seqIn.Items[at:at+L], tr.targets[at:at+L], tr.events[at:at+L])
		q := tr.rows.win.List[u].Query
		for j := at; j < at+L; j++ {
			if e := tr.events[j]; e >= 0 {
				tr.batch[j] = ds.Train[e]
			} else {
				tr.batch[j] = datasets.Interaction{Query: q, Item: candidates.NoItem}
			}
		}
	}
	return tr.batch
}

// valid is the number of rows of batch (compose's) with a positive.
func (tr *trainer[T]) valid(batch []datasets.Interaction) int {
	n := 0
	for _, x := range batch {
		if x.Item != candidates.NoItem {
			n++
		}
	}
	return n
}

// example is the entry of a step's batch that score row i belongs to: its example, or with
// SASRec (a batch of rows) the row itself.
func (tr *trainer[T]) example(i int) int {
	if tr.rows.positions() {
		return i
	}
	return tr.g.Example(i)
}

// forwardBackward prepares the step (columns, estimator, Step), runs the graph and leaves the
// gradients in the graph's gradient nodes. batch holds the step's examples (B), or with SASRec
// its rows (compose).
func (tr *trainer[T]) forwardBackward(t int64, batch []datasets.Interaction) (float64, error) {
	for i, it := range batch {
		tr.pos[i] = it.Item
	}
	for i := range tr.ids[sideQuery] {
		tr.ids[sideQuery][i] = batch[tr.example(i)].Query
	}
	tr.smp.Draw(tr.negRNG, &tr.data, tr.pos, tr.ids[sideItem])
	if k, bad := outsideCorpus(tr.ids[sideItem], tr.items, tr.g.Padded || tr.g.Unfilled); bad {
		return 0, tr.badItem("drew", k, int64(tr.ids[sideItem][k]))
	}
	if tr.g.Padded || tr.g.Unfilled {
		tr.substitute()
	}
	if tr.distinct {
		tr.listDistinct()
	}
	if err := tr.fillStep(t, batch); err != nil {
		return 0, err
	}
	return tr.run()
}

// outsideCorpus returns the first entry of items outside the corpus [0, n), NoItem allowed when
// noItem says so, and whether there is one: a registered sampler's mistake, which would otherwise
// index past the embedding tables.
func outsideCorpus[I int32 | int64](items []I, n int, noItem bool) (int, bool) {
	for k, it := range items {
		if (it < 0 || int64(it) >= int64(n)) && !(noItem && it == candidates.NoItem) {
			return k, true
		}
	}
	return 0, false
}

// badItem is the error of entry k of a sampler's draws or columns, item, outside the corpus.
func (tr *trainer[T]) badItem(what string, k int, item int64) error {
	return fmt.Errorf("sampler %s %s item %d (entry %d of the step), outside the corpus [0, %d)", tr.g.Sampler, what, item, k, tr.items)
}

// substitute fills inRows from the step's ids: each NoItem (a padding row's positive, an empty
// drawn row) becomes padItem, the first item the step has (item 0 when it has none); with
// padding, scatterQ marks the padding rows.
func (tr *trainer[T]) substitute() {
	rows := tr.ids[sideItem]
	tr.padItem = candidates.NoItem
	for _, it := range rows {
		if it != candidates.NoItem {
			tr.padItem = it
			break
		}
	}
	pad := max(tr.padItem, 0)
	for k, it := range rows {
		if it == candidates.NoItem {
			it = pad
		}
		tr.inRows[sideItem][k] = it
	}
	if !tr.g.Padded {
		return
	}
	copy(tr.scatterQ, tr.ids[sideQuery])
	for i := range tr.r {
		if tr.padding(i) {
			tr.scatterQ[i] = candidates.NoItem
		}
	}
}

// padding reports whether score row i is padding: its positive is NoItem.
func (tr *trainer[T]) padding(i int) bool {
	return tr.g.Padded && tr.rowPos()[i] == candidates.NoItem
}

// rowPos are the rows' positive items: the first R item rows under layouts diagonal and first,
// the batch's positives under layout corpus.
func (tr *trainer[T]) rowPos() []int32 {
	if tr.g.Layout == candidates.Corpus {
		return tr.pos
	}
	return tr.ids[sideItem][:tr.r]
}

// listDistinct lists the step's distinct items in towerIDs (first occurrence first), the rows
// past them repeating the first, and maps each item row to its tower row.
func (tr *trainer[T]) listDistinct() {
	u := tr.towerIDs[sideItem]
	items := tr.lister.List(tr.inRows[sideItem], tr.items, u[:0], tr.rowOf)

	tr.nDistinct = len(items)
	for k := len(items); k < len(u); k++ {
		u[k] = u[0]
	}
}

// run gathers the tower inputs (with SASRec: binds the step's windows and draws its dropout
// masks from the run's random source of negatives) and runs the graph; it returns the loss.
func (tr *trainer[T]) run() (float64, error) {
	for side, t := range tr.m.towers {
		if side == sideQuery && tr.seq != nil {
			tr.seq.bind(&tr.seqIn)
			tr.seq.fillDropout(tr.negRNG)
			continue
		}
		if p := tr.rep[side]; p != nil {
			p.list(tr.towerIDs[side])
		}
		gather(tr.m, t, tr.towerIDs[side], tr.x[side], tr.rep[side])
		if side == sideQuery && tr.hist != nil {
			gatherHistory(tr.m, t, tr.hist, tr.x[side])
		}
	}
	defer tr.vm.Reset()
	if err := tr.vm.RunAll(); err != nil {
		if lf := (*losses.NonFiniteError)(nil); errors.As(opError(err), &lf) {
			return lf.Value, &NonFiniteError{Quantity: "loss", Value: lf.Value}
		}
		return 0, opError(err)
	}
	l, ok := losses.Scalar(tr.lossNode.Value())
	if !ok {
		return 0, fmt.Errorf("models: the loss is not a scalar: %v", tr.lossNode.Value())
	}
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return l, &NonFiniteError{Quantity: "loss", Value: l}
	}
	return l, nil
}

// fillStep overwrites the loss's side information for the current columns: the rows' own, then
// (after the estimator observed the batch, for a sampler that reads the positives' law) the
// sampler's declarations, then the data's values at each column.
func (tr *trainer[T]) fillStep(t int64, batch []datasets.Interaction) error {
	st := tr.st
	rewards := st.Row(candidates.Rewards)
	for i, item := range tr.rowPos() {
		st.RowItem[i] = int64(item)
		rewards[i] = 0
		if !tr.padding(i) {
			rewards[i] = float64(batch[tr.example(i)].Reward)
		}
	}
	for _, sd := range tr.itemSide {
		row := st.Row(sd.name)
		for i, item := range st.RowItem {
			row[i] = 0
			if item >= 0 {
				row[i] = sd.values[item]
			}
		}
	}
	var law samplers.Law
	if tr.shape.PositiveLaw {
		keys, err := tr.estimatorKeys()
		if err != nil {
			return err
		}
		tr.est.Observe(t, tr.observed(keys))
		law = tr.law
	}
	if err := tr.smp.Declare(&tr.data, tr.rowPos(), tr.ids[sideItem], law, st); err != nil {
		return err
	}
	if k, bad := outsideCorpus(st.ColItem, tr.items, true); bad { // NoItem: a row's own positive, or an empty column
		return tr.badItem("declared as a column", k, st.ColItem[k])
	}
	if tr.audit != nil {
		tr.audit.Observe(tr.shape, st)
	}
	if tr.known != nil {
		if err := tr.known.fill(st, tr.ids[sideQuery]); err != nil {
			return err
		}
	}
	cols := len(st.ColItem) // the columns of a row: every row's, or, per row, its own
	if tr.g.PerRow > 0 {
		cols /= len(st.RowItem)
	}
	for _, sd := range tr.itemSide {
		col, row := st.Col(sd.name), st.Row(sd.name)
		for k, item := range st.ColItem {
			if item >= 0 {
				col[k] = sd.values[item]
			} else { // the row's own positive: its row's value (the first row's, for shared columns)
				col[k] = row[k/cols]
			}
		}
	}
	return nil
}

// observed are the keys of the rows' positives, which the estimator observes: the batch's B
// positives, or, with padding, the valid rows' positives.
func (tr *trainer[T]) observed(keys []uint64) []uint64 {
	if !tr.g.Padded {
		return keys[:tr.b]
	}
	tr.obs = tr.obs[:0]
	for i := range tr.r {
		if !tr.padding(i) {
			tr.obs = append(tr.obs, keys[i])
		}
	}
	return tr.obs
}

// positiveLaw is the positives' law of item row j: p = the estimator's p̂ of the row's key (Yi et
// al.'s Algorithm 2, observed for this step) and q = count/N, or q = DrawProb(p̂, B) with
// loss.q_source = "estimator" (docs/logq.md). A p̂ outside (0, 1] is an error, and so is a
// saturated p̂ = 1 where q is inverted from it.
func (tr *trainer[T]) positiveLaw(j int) (q, p float64, estimated bool, err error) {
	item := tr.ids[sideItem][j]
	if item == candidates.NoItem { // a padding row: any law in (0, 1) will do, its row has no loss
		u := 1 / float64(tr.items)
		return u, u, false, nil
	}
	p = tr.est.Prob(tr.keys[j])
	if !(p > 0 && p <= 1) {
		return 0, 0, true, fmt.Errorf("estimator gave p̂ = %v for item %d (want (0, 1])", p, item)
	}
	q = math.Exp(tr.logFreq[item])
	if tr.qFromEst {
		if p == 1 {
			return 0, 0, true, tr.saturated(item)
		}
		q = losses.DrawProb(p, tr.rows.perStep(tr.b))
	}
	return q, p, true, nil
}

// saturated is the error of a saturated p̂ = 1 where a per-draw q̂ is needed.
func (tr *trainer[T]) saturated(item int32) error {
	c := tr.data.Counts[item]
	return fmt.Errorf("loss.q_source = %q: the estimator's p̂ = 1 for item %d (%d of the %d training interactions, "+
		"B·q = %.3g copies per batch of %d rows): a saturated inclusion probability gives no per-draw q "+
		"(inverting it would give q = 1 and weight the item about B·q times too little); set "+
		"loss.q_source = %q (the exact training frequency), or use an estimator that does not saturate "+
		"(estimator.init = \"uniform\", estimator.formula = \"binomial\")",
		losses.QSourceEstimator, item, c, tr.data.N, float64(tr.rows.perStep(tr.b))*float64(c)/float64(tr.data.N), tr.rows.perStep(tr.b), losses.QSourceCounts)
}

// estimatorKeys returns the estimator's key of every item row: the item id, or for an
// EmbeddingKeyer the key of the row's current item-tower embedding.
func (tr *trainer[T]) estimatorKeys() ([]uint64, error) {
	ids := tr.inRows[sideItem]
	if tr.keyer == nil {
		for j, id := range ids {
			tr.keys[j] = uint64(id)
		}
		return tr.keys, nil
	}
	if tr.keyf == nil {
		var err error
		if tr.keyf, err = newInference[T](tr.m, tr.m.towers[sideItem], len(ids), tr.impl); err != nil {
			return nil, err
		}
	}
	y, err := tr.keyf.run(ids)
	if err != nil {
		return nil, err
	}
	tr.emb = reuse.Grow(tr.emb, len(y))
	for i, v := range y {
		tr.emb[i] = float32(v)
	}
	tr.keys = tr.keyer.Keys(tr.keys, tr.emb, tr.m.Dim())
	if len(tr.keys) != len(ids) {
		return nil, fmt.Errorf("estimator returned %d keys for %d embeddings", len(tr.keys), len(ids))
	}
	return tr.keys, nil
}

// apply turns the step's gradients into updates: it scatters the input gradients into the
// embedding rows, clips by the global norm, and runs the optimiser on the dense weights and the
// touched rows.
func (tr *trainer[T]) apply() error {
	defer func() {
		for _, rg := range tr.grads {
			rg.reset()
		}
	}()
	norm := tr.gradients()
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return &NonFiniteError{Quantity: "gradient norm", Value: norm}
	}
	scale := T(1)
	if tr.clip > 0 && norm > tr.clip {
		scale = T(tr.clip / norm)
	}
	tr.opt.begin()
	// The parameters are disjoint: the dense weights and each table update concurrently.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i, p := range tr.dense {
			tr.opt.dense(p, data[T](tr.denseGrad[i].Value()), scale)
		}
	})
	for i, p := range tr.m.tables {
		wg.Go(func() { tr.opt.rows(p, tr.grads[i], scale) })
	}
	wg.Wait()
	return nil
}

// gradients scatters the gradients of the tower inputs into the tables' row gradients and
// returns the global L2 norm of the step's gradient (dense weights and touched rows).
func (tr *trainer[T]) gradients() float64 {
	var dx [2][]T
	for side, n := range tr.dx {
		if n != nil {
			dx[side] = data[T](n.Value())
		}
	}
	live := tr.towerIDs
	n := len(live[sideItem]) - tr.g.Constant(tr.r) // no gradient reaches the constant rows
	if tr.distinct {
		n = tr.nDistinct // nor the repeated rows past the distinct items
	}
	live[sideItem] = live[sideItem][:n]
	if tr.g.Padded { // nor a padding row's entities
		live[sideQuery] = tr.scatterQ
	}
	if tr.g.Padded || tr.g.Unfilled { // nor the rows without an item
		switch {
		case !tr.distinct:
			live[sideItem] = tr.ids[sideItem][:n]
		case tr.padItem == candidates.NoItem: // every item row is padding: the tower computed item 0
			live[sideItem] = nil
		}
	}
	scatter(tr.m, live, dx, tr.grads, tr.scatterHistories(live[sideQuery], dx[sideQuery]))
	var ss float64
	for _, g := range tr.denseGrad {
		ss += sumSquares(data[T](g.Value()))
	}
	for _, rg := range tr.grads {
		ss += sumSquares(rg.grad)
	}
	return math.Sqrt(ss)
}

// scatterHistories returns what the query side adds to table ti's row gradients besides its
// fields, from the gradient dx of its inputs: the mean encoder's history segments of the rows
// whose query is not NoItem (a padding row's), or SASRec's input rows of the step's windows
// (into the input item table, table 0); nil without a history.
func (tr *trainer[T]) scatterHistories(queries []int32, dx []T) func(ti int, rg *rowGrad[T]) {
	t := tr.m.towers[sideQuery]
	switch {
	case tr.seq != nil:
		return func(ti int, rg *rowGrad[T]) {
			if ti == 0 {
				tr.seq.scatter(&tr.seqIn, dx, rg)
			}
		}
	case t.history != nil:
		return func(ti int, rg *rowGrad[T]) {
			if ti == t.history.table {
				scatterHistory(tr.m, t, tr.hist, queries, dx, rg)
			}
		}
	}
	return nil
}

func sumSquares[T float](x []T) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s
}
