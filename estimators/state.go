package estimators

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
)

// The state of an estimator (what Observe changes) can be saved and restored, so that training
// resumed from a checkpoint continues with the estimator where it stopped: every estimator New
// returns implements encoding.BinaryMarshaler and encoding.BinaryUnmarshaler. A state restores
// only into an estimator built with the same settings and environment (the same number of
// buckets or items); the sequential and concurrent sketches share one state format.

// sketchState is the saved state of a streaming sketch: A and B of every bucket.
type sketchState struct {
	Last []int64
	Gap  []float32
}

func encodeState(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func decodeState(data []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(v); err != nil {
		return fmt.Errorf("estimators: decoding the state: %w", err)
	}
	return nil
}

// MarshalBinary returns the sketch's buckets.
func (s *sketch) MarshalBinary() ([]byte, error) {
	st := sketchState{Last: make([]int64, len(s.cells)), Gap: make([]float32, len(s.cells))}
	for i, c := range s.cells {
		st.Last[i], st.Gap[i] = c.last, c.gap
	}
	return encodeState(st)
}

// UnmarshalBinary restores buckets saved by MarshalBinary.
func (s *sketch) UnmarshalBinary(data []byte) error {
	st, err := decodeSketch(data, len(s.cells))
	if err != nil {
		return err
	}
	for i := range s.cells {
		s.cells[i] = cell{last: st.Last[i], gap: st.Gap[i]}
	}
	return nil
}

func decodeSketch(data []byte, n int) (sketchState, error) {
	var st sketchState
	if err := decodeState(data, &st); err != nil {
		return st, err
	}
	if len(st.Last) != n || len(st.Gap) != n {
		return st, fmt.Errorf("estimators: the state has %d buckets, the sketch %d", len(st.Last), n)
	}
	return st, nil
}

// MarshalBinary returns the sketch's buckets (not safe concurrently with Observe).
func (s *atomicSketch) MarshalBinary() ([]byte, error) {
	st := sketchState{Last: make([]int64, len(s.cells)), Gap: make([]float32, len(s.cells))}
	for i := range s.cells {
		st.Last[i], st.Gap[i] = s.cells[i].last.Load(), math.Float32frombits(s.cells[i].gap.Load())
	}
	return encodeState(st)
}

// UnmarshalBinary restores buckets saved by MarshalBinary.
func (s *atomicSketch) UnmarshalBinary(data []byte) error {
	st, err := decodeSketch(data, len(s.cells))
	if err != nil {
		return err
	}
	for i := range s.cells {
		s.cells[i].last.Store(st.Last[i])
		s.cells[i].gap.Store(math.Float32bits(st.Gap[i]))
	}
	return nil
}

// tableState is the saved state of an online exact table (a static table has none).
type tableState struct {
	Counts []int64
	Extra  map[uint64]int64
	Total  int64
}

// MarshalBinary returns the counts of an online table (nothing for a static one).
func (t *table) MarshalBinary() ([]byte, error) {
	if !t.online {
		return nil, nil
	}
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	return encodeState(tableState{Counts: t.counts, Extra: t.extra, Total: t.total})
}

// UnmarshalBinary restores counts saved by MarshalBinary.
func (t *table) UnmarshalBinary(data []byte) error {
	if !t.online {
		if len(data) != 0 {
			return errors.New("estimators: a state for a static table, which has none")
		}
		return nil
	}
	var st tableState
	if err := decodeState(data, &st); err != nil {
		return err
	}
	if len(st.Counts) != len(t.counts) {
		return fmt.Errorf("estimators: the state counts %d items, the table %d", len(st.Counts), len(t.counts))
	}
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	copy(t.counts, st.Counts)
	t.extra = st.Extra
	if t.extra == nil {
		t.extra = map[uint64]int64{}
	}
	t.total = st.Total
	return nil
}

// stateful is an estimator whose state can be saved.
type stateful interface {
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

// MarshalBinary returns the state of the inner estimator (the projections are fixed by the seed).
func (l *lsh) MarshalBinary() ([]byte, error) { return l.Estimator.(stateful).MarshalBinary() }

// UnmarshalBinary restores the inner estimator's state.
func (l *lsh) UnmarshalBinary(data []byte) error { return l.Estimator.(stateful).UnmarshalBinary(data) }
