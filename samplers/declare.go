package samplers

import (
	"encoding"
	"errors"
	"math"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
	"github.com/samplingbias/workbench/internal/setting"
)

// Declaration says which probabilities a sampler declares for the loss to subtract,
// Settings.Declare.
type Declaration string

// Declarations.
const (
	// DeclareLaw (the default): the sampler's own law, exact where it allows a closed form.
	DeclareLaw Declaration = "law"
	// DeclareUnigram: every item's training frequency, whatever the sampler drew. It is the Q
	// that TensorFlow Recommenders and the official code of Khrylchenko et al. 2025 subtract for
	// every candidate, in-batch or uniform: unigram declares it, so that the audit measures it
	// against the draws and a run measures what subtracting it costs.
	DeclareUnigram Declaration = "unigram"
)

// declarations are the allowed Declaration values.
var declarations = []Declaration{DeclareLaw, DeclareUnigram}

// UnmarshalText sets x from its name; an unknown name is an error that lists the allowed ones.
func (x *Declaration) UnmarshalText(b []byte) error { return setting.Unmarshal(x, b, declarations) }

// unigram is a sampler that draws like its Sampler and declares, for every column and every
// row's positive, the item's training frequency as its per-draw probability, q_j = count_j/N
// (max(count_j, 1)/N for an item without training interactions, so that log q stays finite:
// uniform draws reach such items), and p_j = 1 − (1 − q_j)^D, the inclusion probability of the
// step's D independent draws from that law (DeclareUnigram; draws gives D).
type unigram struct{ Sampler }

func (u unigram) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	if err := u.Sampler.Declare(d, pos, rows, law, c); err != nil {
		return err
	}
	sh := u.Shape()
	f := u.law(d, draws(sh, negatives(sh, pos, d)))
	logQ, logP, posQ, posP := c.Col(candidates.LogQ), c.Col(candidates.LogP), c.Row(candidates.LogQ), c.Row(candidates.LogP)
	for j, item := range c.ColItem {
		if item >= 0 {
			logQ[j], logP[j] = f(int32(item))
		}
	}
	for i, item := range pos {
		if item >= 0 { // a padding row keeps its sampler's declaration
			posQ[i], posP[i] = f(item)
		}
	}
	if sh.Layout == candidates.First { // column 0 is each row's positive
		n := 1
		if sh.PerRow > 0 {
			n = len(pos)
		}
		for i, cols := 0, len(c.ColItem)/n; i < n; i++ {
			logQ[i*cols], logP[i*cols] = posQ[i], posP[i]
		}
	}
	c.Estimated = false
	return nil
}

// Check is the Check of the sampler it wraps (Checker), if any.
func (u unigram) Check(d *Data) error {
	if c, ok := u.Sampler.(Checker); ok {
		return c.Check(d)
	}
	return nil
}

// ItemLaw declares every item's training frequency, as Declare does.
func (u unigram) ItemLaw(d *Data, items []int32, logQ, logP []float64) {
	sh := u.Shape()
	itemLaw(items, logQ, logP, u.law(d, draws(sh, sh.Cols(sh.Rows(d.Batch), d.Items)-1)))
}

// Sides are the side inputs the sampler declares besides log q and log p (SideDeclarer).
func (u unigram) Sides() []candidates.Side {
	if s, ok := u.Sampler.(SideDeclarer); ok {
		return s.Sides()
	}
	return nil
}

// draws is the number D of draws among a step's columns, m of them a row's negatives: under layout
// diagonal every column is a draw, the rows' positives included (D = C, as the in-batch law's
// p = 1 − (1 − q)^B counts the B positives); under layout first column 0 is each row's own
// positive and the C − 1 others are the draws (D = m = C − 1), as under layout corpus, whose
// columns are no draws at all.
func draws(sh Shape, m int) int {
	if sh.Layout == candidates.Diagonal {
		return m + 1
	}
	return m
}

// law is (log q, log p) of an item with q = max(count, 1)/N over n draws.
func (u unigram) law(d *Data, n int) func(int32) (float64, float64) {
	return func(item int32) (float64, float64) {
		q := float64(max(d.Counts[item], 1)) / float64(d.N)
		return math.Log(q), math.Log(prob.Inclusion(q, n))
	}
}

// MarshalBinary saves the state of a Sampler that keeps one (memory); a stateless one saves none.
func (u unigram) MarshalBinary() ([]byte, error) {
	if m, ok := u.Sampler.(encoding.BinaryMarshaler); ok {
		return m.MarshalBinary()
	}
	return nil, nil
}

// UnmarshalBinary restores what MarshalBinary saved.
func (u unigram) UnmarshalBinary(data []byte) error {
	if m, ok := u.Sampler.(encoding.BinaryUnmarshaler); ok {
		return m.UnmarshalBinary(data)
	}
	if len(data) > 0 {
		return errors.New("samplers: state saved for a stateless sampler")
	}
	return nil
}
