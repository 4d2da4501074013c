package tape

import (
	"fmt"
	"hash"
	"hash/fnv"
	"runtime"
	"testing"
	"weak"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// countOp is the identity on a matrix that counts its executions.
type countOp struct{ runs *int }

func (countOp) Arity() int    { return 1 }
func (countOp) Type() hm.Type { a := hm.TypeVariable('a'); return hm.NewFnType(a, a) }
func (countOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (op countOp) Do(in ...gorgonia.Value) (gorgonia.Value, error) { *op.runs++; return in[0], nil }
func (countOp) ReturnsPtr() bool                                   { return true }
func (countOp) CallsExtern() bool                                  { return false }
func (countOp) OverwritesInput() int                               { return -1 }
func (op countOp) WriteHash(h hash.Hash)                           { fmt.Fprintf(h, "count%p", op.runs) }
func (op countOp) Hashcode() uint32                                { h := fnv.New32a(); op.WriteHash(h); return h.Sum32() }
func (countOp) String() string                                     { return "count" }

// TestMachine: the machine computes its outputs and skips a node that no output depends on,
// which a machine of the whole graph runs.
func TestMachine(t *testing.T) {
	for _, whole := range []bool{false, true} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(1, 2), gorgonia.WithName("x"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(1, 2), tensor.WithBacking([]float64{1, 2}))))
		y := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.Square(x))))
		runs := 0
		gorgonia.Must(gorgonia.ApplyOp(countOp{&runs}, x)) // a stray node
		var vm gorgonia.VM
		if whole {
			vm = gorgonia.NewTapeMachine(g)
		} else {
			var err error
			if vm, err = Machine(g, y); err != nil {
				t.Fatal(err)
			}
		}
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vm.Close()
		if got := y.Value().Data().(float64); got != 5 {
			t.Errorf("whole graph %v: y = %v, want 1² + 2² = 5", whole, got)
		}
		if want := map[bool]int{false: 0, true: 1}[whole]; runs != want {
			t.Errorf("whole graph %v: the stray node ran %d times, want %d", whole, runs, want)
		}
	}
}

// owner holds a machine whose graph refers back to the owner, as a trainer's loss op does.
type owner struct {
	vm   gorgonia.VM
	runs int
}

// TestMachineCollected: a machine in a reference cycle through its own graph is freed once
// unreachable (with gorgonia.NewTapeMachine's finalizer, it never is).
func TestMachineCollected(t *testing.T) {
	ref := func() weak.Pointer[owner] {
		o := new(owner)
		g := gorgonia.NewGraph()
		x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(1, 2), gorgonia.WithName("x"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(1, 2), tensor.WithBacking([]float64{1, 2}))))
		y := gorgonia.Must(gorgonia.ApplyOp(countOp{&o.runs}, x))
		var err error
		if o.vm, err = Machine(g, y); err != nil {
			t.Fatal(err)
		}
		if err := o.vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		return weak.Make(o)
	}()
	for range 3 {
		runtime.GC()
	}
	if ref.Value() != nil {
		t.Error("the machine's owner is still reachable after three collections")
	}
}

// TestEngineAdd: Engine's sum gives the standard engine's values, bit for bit, in place, into a
// reused tensor, into a new one and with an increment (which it leaves to the standard engine),
// for float32 and float64 tensors of every size up to 40 and a large one (split over goroutines);
// and the machine computes with it.
func TestEngineAdd(t *testing.T) {
	std := gorgonia.StandardEngine{}
	for _, n := range []int{1, 2, 7, 8, 9, 31, 40, 100_003} {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			mk := func(seed int) *tensor.Dense {
				x := tensor.New(tensor.WithShape(n, 1), tensor.Of(dt))
				for i := range n {
					v := float64((i*7919+seed*104729)%1000)/7 - 70
					if dt == tensor.Float32 {
						x.Data().([]float32)[i] = float32(v)
					} else {
						x.Data().([]float64)[i] = v
					}
				}
				return x
			}
			for _, mode := range []string{"unsafe", "reuse", "safe", "incr"} {
				var got, want tensor.Tensor
				for k, e := range []interface {
					Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error)
				}{Engine{}, std} {
					a, b := mk(1), mk(2)
					var opts []tensor.FuncOpt
					switch mode {
					case "unsafe":
						opts = append(opts, tensor.UseUnsafe())
					case "reuse":
						opts = append(opts, tensor.WithReuse(mk(3)))
					case "incr":
						opts = append(opts, tensor.WithIncr(mk(3)))
					}
					r, err := e.Add(a, b, opts...)
					if err != nil {
						t.Fatal(err)
					}
					if mode == "unsafe" && r != tensor.Tensor(a) {
						t.Fatalf("%v n %d: the unsafe sum is not in a", dt, n)
					}
					if k == 0 {
						got = r
					} else {
						want = r
					}
				}
				if fmt.Sprint(got.Data()) != fmt.Sprint(want.Data()) {
					t.Fatalf("%v n %d %s: %v, standard engine %v", dt, n, mode, got.Data(), want.Data())
				}
			}
		}
	}
	// The machine's engine: x + y for a float32 x and y computed by Engine.Add.
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(1, 3), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(1, 3), tensor.WithBacking([]float32{1, 2, 3}))))
	y := gorgonia.Must(gorgonia.Add(x, x))
	m, err := Machine(g, y)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	if e := y.Value().(*tensor.Dense).Engine(); fmt.Sprintf("%T", e) != "tape.Engine" {
		t.Errorf("the machine's values compute with %T, want tape.Engine", e)
	}
	if got := fmt.Sprint(y.Value().Data()); got != "[2 4 6]" {
		t.Errorf("x + x = %s, want [2 4 6]", got)
	}
}
