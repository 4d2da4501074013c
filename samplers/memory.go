package samplers

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
)

// memory is KindMemory: cross-batch memory (Wang et al. 2020, "Cross-Batch Memory for Embedding
// Learning"): the batch's positives, then the positives of the previous K = memory_batches
// batches, oldest first, as extra negatives shared by every row (Layout Diagonal, C = B + K·B),
// held constant: no gradient flows into the memory's rows (Shape.Memory). Their embeddings are
// those of the current towers (computed at this step without gradient), not the stale ones of
// the step that stored them as in Wang et al.; what the memory stores is the items. Until K
// batches have been seen, the slots not yet filled hold the current batch's positives.
//
// Every row is a draw of the data law (the batches are i.i.d. draws of the training
// interactions), so q = q̂, a row's C − 1 negatives hold (B − 1 + K·B)·q̂ copies of item j in
// expectation, and the item is missed only if each of the K + 1 batches misses it:
// p = 1 − (1 − p̂)^(K+1).
type memory struct {
	k      int
	ring   []int32 // the last K batches' positives, slot by slot
	next   int     // the next slot (batch) to overwrite
	filled int     // slots filled so far, at most K
}

func (s *memory) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.Diagonal, Memory: s.k}, PositiveLaw: true}
}

func (s *memory) Draw(_ *rand.Rand, d *Data, pos, rows []int32) {
	b := len(pos)
	if len(s.ring) != s.k*b {
		s.ring, s.next, s.filled = make([]int32, s.k*b), 0, 0
	}
	copy(rows, pos)
	for i := range s.k { // oldest slot first
		slot := (s.next + i) % s.k
		dst := rows[b+i*b : b+(i+1)*b]
		if i < s.k-s.filled {
			copy(dst, pos)
		} else {
			copy(dst, s.ring[slot*b:(slot+1)*b])
		}
	}
	copy(s.ring[s.next*b:], pos)
	s.next = (s.next + 1) % s.k
	s.filled = min(s.filled+1, s.k)
}

func (s *memory) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	return declareDiagonal(rows, law, c, func(q, p float64) (float64, float64) {
		return q, -math.Expm1(float64(s.k+1) * math.Log1p(-p))
	})
}

// MarshalBinary saves the memory: its slots, the next slot and the number filled.
func (s *memory) MarshalBinary() ([]byte, error) {
	b := binary.LittleEndian.AppendUint32(nil, uint32(s.next))
	b = binary.LittleEndian.AppendUint32(b, uint32(s.filled))
	for _, v := range s.ring {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b, nil
}

// UnmarshalBinary restores what MarshalBinary saved.
func (s *memory) UnmarshalBinary(b []byte) error {
	if len(b) < 8 || len(b)%4 != 0 {
		return fmt.Errorf("samplers: memory state of %d bytes", len(b))
	}
	s.next, s.filled = int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
	s.ring = make([]int32, (len(b)-8)/4)
	for i := range s.ring {
		s.ring[i] = int32(binary.LittleEndian.Uint32(b[8+4*i:]))
	}
	return nil
}
