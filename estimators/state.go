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
	Gap  []float64
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

// encodeSketch encodes the n buckets that bucket returns.
func encodeSketch(n int, bucket func(i int) (last int64, gap float64)) ([]byte, error) {
	st := sketchState{Last: make([]int64, n), Gap: make([]float64, n)}
	for i := range n {
		st.Last[i], st.Gap[i] = bucket(i)
	}
	return encodeState(st)
}

// decodeSketch decodes a state of n buckets and passes each to set.
func decodeSketch(data []byte, n int, set func(i int, last int64, gap float64)) error {
	var st sketchState
	if err := decodeState(data, &st); err != nil {
		return err
	}
	if len(st.Last) != n || len(st.Gap) != n {
		return fmt.Errorf("estimators: the state has %d buckets, the sketch %d", len(st.Last), n)
	}
	for i := range n {
		set(i, st.Last[i], st.Gap[i])
	}
	return nil
}

// MarshalBinary returns the sketch's buckets.
func (s *sketch) MarshalBinary() ([]byte, error) {
	return encodeSketch(len(s.cells), func(i int) (int64, float64) { return s.cells[i].last, s.cells[i].gap })
}

// UnmarshalBinary restores buckets saved by MarshalBinary.
func (s *sketch) UnmarshalBinary(data []byte) error {
	return decodeSketch(data, len(s.cells), func(i int, last int64, gap float64) { s.cells[i] = cell{last: last, gap: gap} })
}

// MarshalBinary returns the sketch's buckets (not safe concurrently with Observe).
func (s *atomicSketch) MarshalBinary() ([]byte, error) {
	return encodeSketch(len(s.cells), func(i int) (int64, float64) {
		return s.cells[i].last.Load(), math.Float64frombits(s.cells[i].gap.Load())
	})
}

// UnmarshalBinary restores buckets saved by MarshalBinary (not safe concurrently with Observe).
func (s *atomicSketch) UnmarshalBinary(data []byte) error {
	return decodeSketch(data, len(s.cells), func(i int, last int64, gap float64) {
		s.cells[i].last.Store(last)
		s.cells[i].gap.Store(math.Float64bits(gap))
	})
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
