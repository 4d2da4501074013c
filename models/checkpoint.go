package models

import (
	"bytes"
	"compress/flate"
	"encoding"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"time"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// A training checkpoint (TrainResumable) holds everything a run needs to continue as if it had
// never stopped: the parameters, the optimiser's state and step count, the estimator's state,
// the states of the random-number generators (the epoch shuffle and the uniform negatives), the
// batch order of the current epoch, the number of steps done and the training curve so far. It
// is written atomically in the checksummed layout of model files (save.go), with its own magic.

// The options of a registered loss variant or sampler (losses.Settings.Options,
// samplers.Settings.Options), part of runIdentity, are TOML values: the lists and tables among
// them are encoded as interface values, which gob encodes only once their types are registered.
func init() {
	gob.Register([]any(nil))
	gob.Register(map[string]any(nil))
}

// runIdentity is what a checkpoint must share with the run that resumes from it.
type runIdentity struct {
	Model   Settings
	Train   TrainSettings // LogSeconds and CheckpointEvery zeroed: they do not change the result
	Loss    losses.Settings
	Sampler samplers.Settings
	Dtype   string
	Seed    int64
	Data    dataIdentity
}

type dataIdentity struct {
	Name                  string
	Queries, Items, Train int
	Hash                  uint64 // FNV-64a of the training interactions
}

func newRunIdentity(m *Model, ds *datasets.Dataset, ls losses.Settings, ss samplers.Settings, ts TrainSettings, seed int64) runIdentity {
	ts.LogSeconds, ts.CheckpointEvery = 0, 0
	h := fnv.New64a()
	var b [28]byte
	for _, a := range ds.Train {
		binary.LittleEndian.PutUint32(b[0:], uint32(a.Query))
		binary.LittleEndian.PutUint32(b[4:], uint32(a.Item))
		binary.LittleEndian.PutUint64(b[8:], uint64(a.Time))
		binary.LittleEndian.PutUint32(b[16:], uint32(a.Day))
		binary.LittleEndian.PutUint32(b[20:], math.Float32bits(a.Reward))
		h.Write(b[:24])
	}
	return runIdentity{Model: m.Settings(), Train: ts, Loss: ls, Sampler: ss, Dtype: m.dt.String(), Seed: seed,
		Data: dataIdentity{Name: ds.Name, Queries: ds.Queries, Items: ds.Items, Train: len(ds.Train), Hash: h.Sum64()}}
}

// differs names the first part of id that differs from o, or returns "".
func (id runIdentity) differs(o runIdentity) string {
	switch {
	case !reflect.DeepEqual(id.Model, o.Model):
		return fmt.Sprintf("model settings %+v, this run %+v", o.Model, id.Model)
	case !reflect.DeepEqual(id.Train, o.Train):
		return fmt.Sprintf("train settings %+v, this run %+v", o.Train, id.Train)
	case !reflect.DeepEqual(id.Loss, o.Loss):
		return fmt.Sprintf("loss settings %+v, this run %+v", o.Loss, id.Loss)
	case !reflect.DeepEqual(id.Sampler, o.Sampler):
		return fmt.Sprintf("sampler settings %+v, this run %+v", o.Sampler, id.Sampler)
	case id.Dtype != o.Dtype:
		return fmt.Sprintf("dtype %s, this run %s", o.Dtype, id.Dtype)
	case id.Seed != o.Seed:
		return fmt.Sprintf("seed %d, this run %d", o.Seed, id.Seed)
	case id.Data != o.Data:
		return fmt.Sprintf("data %+v, this run %+v", o.Data, id.Data)
	}
	return ""
}

// checkpoint is the header of a checkpoint file. The arrays stored after it are the model's
// parameters, the optimiser's states and the batch order, in this order.
type checkpoint struct {
	Run       runIdentity
	Step      int // steps completed
	Model     savedModel
	OptStep   int          // the optimiser's completed steps
	OptState  []savedParam // per parameter of Model.Params that has one (none for SGD)
	Estimator []byte       // the estimator's MarshalBinary (nil without an estimator)
	Shuffle   []byte       // PCG state of the epoch shuffle
	Negatives []byte       // PCG state of the uniform negatives
	Sampler   []byte       // the sampler's MarshalBinary (nil for a sampler without state)
	Order     int          // the length of the batch order of the current epoch
	Curve     Curve
	Sum       float64 // sum of the losses of the curve's current interval
	Since     int     // steps in the curve's current interval
	Cost      checkpointCost
}

// checkpointCost counts the checkpoints of a run written before one, and the time they took.
type checkpointCost struct {
	Writes  int
	Seconds float64
}

// withOne adds the checkpoint that holds c, whose own time cannot be in it: it counts at the mean
// time of the others (0 when there are none).
func (c checkpointCost) withOne() checkpointCost {
	if c.Writes > 0 {
		c.Seconds += c.Seconds / float64(c.Writes)
	}
	c.Writes++
	return c
}

// loop is the state of a training loop that a checkpoint saves and restores.
type loop struct {
	step    int // steps completed
	order   []int32
	shuffle *rand.PCG
	curve   Curve
	sum     float64
	since   int
	cost    checkpointCost // of the checkpoints written so far, by this process and before a resume
}

// stateOf returns the estimator's state, nil for a nil estimator.
func stateOf(est estimators.Estimator) ([]byte, error) {
	if est == nil {
		return nil, nil
	}
	s, ok := est.(encoding.BinaryMarshaler)
	if !ok {
		return nil, fmt.Errorf("models: the estimator %T cannot save its state (encoding.BinaryMarshaler) for checkpoints", est)
	}
	return s.MarshalBinary()
}

// writeCheckpoint writes the state of the trainer and the loop to path. The estimator's state is
// compressed (see packState): a hashed sketch's buckets are mostly empty, and were 97% of the
// checkpoint of the smoke config.
func writeCheckpoint[T float](path string, id runIdentity, tr *trainer[T], l *loop) error {
	start := time.Now()
	est, err := stateOf(tr.est)
	if err != nil {
		return err
	}
	if est, err = packState(est); err != nil {
		return err
	}
	ck := checkpoint{Run: id, Step: l.step, Model: tr.m.saved(), OptStep: tr.opt.t, Estimator: est,
		Order: len(l.order), Curve: l.curve, Sum: l.sum, Since: l.since, Cost: l.cost}
	arrays := ck.Model.values()
	for _, p := range tr.m.params() {
		st, ok := tr.opt.state[p]
		if !ok {
			continue
		}
		sp := savedParam{Name: p.name, Shape: []int{len(st)}, Rows: touchedRows(st, p.shape)}
		ck.OptState = append(ck.OptState, sp)
		arrays = append(arrays, stateRows(st, p.shape, sp.Rows)...)
	}
	arrays = append(arrays, l.order)
	if ck.Shuffle, err = l.shuffle.MarshalBinary(); err != nil {
		return err
	}
	if ck.Negatives, err = tr.negSrc.MarshalBinary(); err != nil {
		return err
	}
	if sm, ok := tr.smp.(encoding.BinaryMarshaler); ok {
		if ck.Sampler, err = sm.MarshalBinary(); err != nil {
			return err
		}
	}
	if err := writeChecksummed(path, checkpointMagic, ck, arrays); err != nil {
		return fmt.Errorf("models: writing the checkpoint: %w", err)
	}
	l.cost.Writes++
	l.cost.Seconds += time.Since(start).Seconds()
	return nil
}

// touchedRows returns the rows of the optimiser state st of a table of the given shape whose state
// is not zero, when they are fewer than half the rows (a checkpoint then stores them alone: the
// others, never touched by a step, have a zero state); nil otherwise, and for a parameter that is
// not a table or one with no row touched.
func touchedRows[T float](st []T, shape []int) []int32 {
	if len(shape) != 2 || shape[0] < 2 {
		return nil
	}
	block := len(st) / shape[0]
	rows := []int32{}
	for r := range shape[0] {
		if slices.ContainsFunc(st[r*block:(r+1)*block], func(v T) bool { return v != 0 }) {
			if len(rows)+1 > shape[0]/2 {
				return nil
			}
			rows = append(rows, int32(r))
		}
	}
	if len(rows) == 0 {
		return nil // stored whole: a header cannot tell no rows from every row (gob drops empty slices)
	}
	return rows
}

// stateRows returns the arrays a checkpoint stores of the optimiser state st of a parameter of
// the given shape: st itself when rows is nil, else the blocks of st of those rows.
func stateRows[T float](st []T, shape []int, rows []int32) []any {
	if rows == nil {
		return []any{st}
	}
	block := len(st) / shape[0]
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = st[int(r)*block : (int(r)+1)*block]
	}
	return out
}

// validRows reports whether rows, read from a checkpoint, are rows of a table of the given shape,
// ascending (nil: every row).
func validRows(rows []int32, shape []int) bool {
	if rows == nil {
		return true
	}
	if len(shape) != 2 {
		return false
	}
	for i, r := range rows {
		if r < 0 || int(r) >= shape[0] || i > 0 && r <= rows[i-1] {
			return false
		}
	}
	return true
}

// packState compresses an estimator's state (DEFLATE, fastest level).
func packState(b []byte) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// unpackState decompresses what packState compressed.
func unpackState(b []byte) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	return io.ReadAll(flate.NewReader(bytes.NewReader(b)))
}

// CheckpointCost is what a run's checkpoints cost: how many were written, the size of the last
// one and the time spent writing them (the last one counted at the mean time of the others, as
// its own time cannot be in it; all of it when it is the only one: unknown, 0).
type CheckpointCost struct {
	Writes  int
	Bytes   int64
	Seconds float64
	// Steps is the number of training steps done at the checkpoint: where a run resumed from
	// it starts.
	Steps int
}

// ReadCheckpointCost reads the cost of the checkpoints of the run whose last checkpoint is at path
// (as TrainResumable leaves it after the last step), over every process that trained the run.
func ReadCheckpointCost(path string) (CheckpointCost, error) {
	st, err := os.Stat(path)
	if err != nil {
		return CheckpointCost{}, err
	}
	var ck checkpoint
	err = readChecksummed(path, checkpointMagic, "checkpoint", &ck, func(int64) ([]any, error) { return nil, errHeaderOnly })
	if err != nil && !errors.Is(err, errHeaderOnly) {
		return CheckpointCost{}, err
	}
	c := ck.Cost.withOne()
	return CheckpointCost{Writes: c.Writes, Bytes: st.Size(), Seconds: c.Seconds, Steps: ck.Step}, nil
}

// errHeaderOnly stops the reading of a checkpoint after its header.
var errHeaderOnly = errors.New("models: the header alone is read")

// resume restores the trainer and the loop from the checkpoint at path; without a file at path
// it changes nothing. The parameters, the optimiser's states and the batch order are read
// straight into the trainer's and the loop's. After an error the model, the optimiser and
// the estimator may be partly restored: the run must not continue.
func resume[T float](path string, id runIdentity, tr *trainer[T], l *loop) error {
	var ck checkpoint
	var logTau *param
	err := readChecksummed(path, checkpointMagic, "checkpoint", &ck, func(int64) ([]any, error) {
		if d := id.differs(ck.Run); d != "" {
			return nil, fmt.Errorf("%s: a checkpoint of another run (%s); remove it to train from the start", path, d)
		}
		if len(ck.OptState) != len(tr.opt.state) || ck.Order != len(l.order) || ck.Step < 0 {
			return nil, fmt.Errorf("%s: corrupt checkpoint: %d optimiser states for %d, an order of %d for %d", path, len(ck.OptState), len(tr.opt.state), ck.Order, len(l.order))
		}
		ps, tau, err := tr.m.fit(path, ck.Model)
		if err != nil {
			return nil, err
		}
		logTau = tau
		arrays := paramData(ps)
		k := 0
		for _, p := range tr.m.params() {
			st, ok := tr.opt.state[p]
			if !ok {
				continue
			}
			sp := ck.OptState[k]
			k++
			if sp.Name != p.name || !slices.Equal(sp.Shape, []int{len(st)}) {
				return nil, fmt.Errorf("%s: corrupt checkpoint: optimiser state %s %v for parameter %s of %d values", path, sp.Name, sp.Shape, p.name, len(st))
			}
			if !validRows(sp.Rows, p.shape) {
				return nil, fmt.Errorf("%s: corrupt checkpoint: the rows of the optimiser state of %s", path, p.name)
			}
			if sp.Rows != nil {
				clear(st) // the rows not stored have a zero state
			}
			arrays = append(arrays, stateRows(st, p.shape, sp.Rows)...)
		}
		return append(arrays, l.order), nil
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if tr.est != nil {
		s, ok := tr.est.(encoding.BinaryUnmarshaler)
		if !ok {
			return fmt.Errorf("models: the estimator %T cannot restore its state (encoding.BinaryUnmarshaler) from checkpoints", tr.est)
		}
		b, err := unpackState(ck.Estimator)
		if err == nil {
			err = s.UnmarshalBinary(b)
		}
		if err != nil {
			return fmt.Errorf("%s: estimator state: %w", path, err)
		}
	}
	if err := l.shuffle.UnmarshalBinary(ck.Shuffle); err != nil {
		return fmt.Errorf("%s: shuffle state: %w", path, err)
	}
	if err := tr.negSrc.UnmarshalBinary(ck.Negatives); err != nil {
		return fmt.Errorf("%s: negative sampler state: %w", path, err)
	}
	if su, ok := tr.smp.(encoding.BinaryUnmarshaler); ok && ck.Sampler != nil {
		if err := su.UnmarshalBinary(ck.Sampler); err != nil {
			return fmt.Errorf("%s: sampler state: %w", path, err)
		}
	}
	if logTau != nil {
		tr.m.logTau = logTau
	}
	tr.opt.t = ck.OptStep
	l.step, l.curve, l.sum, l.since, l.cost = ck.Step, ck.Curve, ck.Sum, ck.Since, ck.Cost.withOne()
	return nil
}
