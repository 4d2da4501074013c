// Package ops is the base of every custom Gorgonia op of the workbench: the fused losses and the
// expressions' primitives of package losses, and the towers' and the score matrix's ops of
// package models. It holds what they share: the methods every op has (Base), and the one rule for
// the tensors an op returns (Out).
//
// # Identity
//
// A Gorgonia graph merges two nodes whose ops hash alike and whose inputs are the same nodes. An
// op's hash is its Name: the op's function and every parameter its output depends on, written
// into the name when the op is made, and never an address. An op whose output depends on
// something besides its inputs and parameters (a loss reading its step) puts a key that is
// unique in its graph into its name; an op that reads what another op computed (a gradient
// reading its forward pass's state) takes that op's output as an input, which both orders it
// after the forward pass and keeps it apart from the gradient of another forward pass.
//
// # Ownership of outputs
//
// An op that owns its output (Out) overwrites the same tensor at every execution, so that a
// training step allocates nothing: a value a node holds after a run of its machine is valid until
// the next run of that machine. A caller that keeps a value across runs copies it out first.
// Builds with the race detector or the opdebug tag (Checked) enforce the rule: there every
// execution returns a new tensor and fills the one returned before with NaN, so that a value read
// after the next run is NaN, where a normal build would silently give the newer run's numbers.
package ops

import (
	"hash"
	"hash/fnv"
	"io"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Base implements the methods of gorgonia.Op that every custom op shares, from its Name (see the
// package documentation): an op type embeds it and sets Name when it is made.
type Base struct {
	Name string
}

// ReturnsPtr is false: an op's output is its own tensor (Out) or a new one, never an input.
func (Base) ReturnsPtr() bool { return false }

// CallsExtern is false: every op computes in Go.
func (Base) CallsExtern() bool { return false }

// OverwritesInput is -1: no op writes into an input.
func (Base) OverwritesInput() int { return -1 }

// WriteHash writes the op's name: its identity in a graph.
func (b Base) WriteHash(h hash.Hash) { io.WriteString(h, b.Name) }

// Hashcode is the FNV-1a hash of the name.
func (b Base) Hashcode() uint32 {
	h := fnv.New32a()
	b.WriteHash(h)
	return h.Sum32()
}

// String is the op's name.
func (b Base) String() string { return b.Name }

// Out is the output tensor an op owns: the same tensor at every execution while the shape and
// dtype stay (see the package documentation for how long a value is valid).
type Out struct {
	t *tensor.Dense
}

// Get returns the op's output of dtype dt and shape s: the tensor of the previous execution when
// it fits, holding that execution's values until the op overwrites them, else a new zeroed one,
// which the op keeps. In a checked build (Checked) it is always a new one, and the previous one
// is filled with NaN.
func (o *Out) Get(dt tensor.Dtype, s ...int) *tensor.Dense {
	if Checked {
		poison(o.t)
		o.t = nil
	}
	if !Fits(o.t, dt, s...) {
		o.t = tensor.New(tensor.WithShape(s...), tensor.Of(dt))
	}
	return o.t
}

// Prealloc is Get for an op that implements gorgonia.UsePreallocDoer: the machine's preallocated
// value prealloc when it fits (the machine then owns it, under the same rule), else Get. A
// checked build always takes Get, so that its check covers the op.
func (o *Out) Prealloc(prealloc gorgonia.Value, dt tensor.Dtype, s ...int) *tensor.Dense {
	if t, ok := prealloc.(*tensor.Dense); ok && !Checked && Fits(t, dt, s...) {
		return t
	}
	return o.Get(dt, s...)
}

// Fits reports whether t is a contiguous tensor of dtype dt and shape s.
func Fits(t *tensor.Dense, dt tensor.Dtype, s ...int) bool {
	return t != nil && t.Dtype() == dt && t.Shape().Eq(tensor.Shape(s)) && !t.RequiresIterator()
}

// poison fills a float tensor with NaN.
func poison(t *tensor.Dense) {
	if t == nil {
		return
	}
	switch d := t.Data().(type) {
	case []float32:
		for k := range d {
			d[k] = float32(math.NaN())
		}
	case []float64:
		for k := range d {
			d[k] = math.NaN()
		}
	}
}
