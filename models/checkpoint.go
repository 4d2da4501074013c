package models

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"

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
}

// loop is the state of a training loop that a checkpoint saves and restores.
type loop struct {
	step    int // steps completed
	order   []int32
	shuffle *rand.PCG
	curve   Curve
	sum     float64
	since   int
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

// writeCheckpoint writes the state of the trainer and the loop to path.
func writeCheckpoint[T float](path string, id runIdentity, tr *trainer[T], l *loop) error {
	est, err := stateOf(tr.est)
	if err != nil {
		return err
	}
	ck := checkpoint{Run: id, Step: l.step, Model: tr.m.saved(), OptStep: tr.opt.t, Estimator: est,
		Order: len(l.order), Curve: l.curve, Sum: l.sum, Since: l.since}
	arrays := ck.Model.values()
	for _, p := range tr.m.params() {
		if st, ok := tr.opt.state[p]; ok {
			ck.OptState = append(ck.OptState, savedParam{Name: p.name, Shape: []int{len(st)}})
			arrays = append(arrays, st)
		}
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
	return nil
}

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
			arrays = append(arrays, st)
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
		if err := s.UnmarshalBinary(ck.Estimator); err != nil {
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
	l.step, l.curve, l.sum, l.since = ck.Step, ck.Curve, ck.Sum, ck.Since
	return nil
}
