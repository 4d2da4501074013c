package setting

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

type color string

const (
	colorRed  color = "red"
	colorBlue color = "blue"
)

var colors = []color{colorRed, colorBlue}

func (c *color) UnmarshalText(b []byte) error { return Unmarshal(c, b, colors) }

func TestUnmarshal(t *testing.T) {
	for _, tt := range []struct {
		text, want, err string
	}{
		{"red", "red", ""},
		{"blue", "blue", ""},
		{"", "", ""},
		{"Red", "green", `unknown "Red" (allowed: red, blue); did you mean red?`},
	} {
		t.Run(tt.text, func(t *testing.T) {
			c := color("green")
			err := c.UnmarshalText([]byte(tt.text))
			if tt.err == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if tt.err != "" {
				var u *UnknownError
				if err == nil || err.Error() != tt.err || !errors.As(err, &u) {
					t.Fatalf("error %v, want %q as *UnknownError", err, tt.err)
				}
			}
			if string(c) != tt.want {
				t.Errorf("value %q, want %q", c, tt.want)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"one of", OneOf("color", colorRed, colors), ""},
		{"not one of", OneOf("color", color("x"), colors), `color: unknown "x" (allowed: red, blue)`},
		{"positive", Positive("n", 1), ""},
		{"zero is not positive", Positive("n", 0), "n: must be positive, got 0"},
		{"NaN is not positive", Positive("x", math.NaN()), "x: must be a positive number, got NaN"},
		{"+Inf is not positive", Positive("x", math.Inf(1)), "x: must be a positive number, got +Inf"},
		{"not negative", NotNegative("c", 0.0, "none"), ""},
		{"negative", NotNegative("c", -1.5, "none"), "c: must be >= 0 (0 = none), got -1.5"},
		{"negative, no meaning", NotNegative("c", -1, ""), "c: must be >= 0, got -1"},
		{"at least", AtLeast("b", 2, 2), ""},
		{"below", AtLeast("b", 1, 2), "b: must be at least 2, got 1"},
		{"open excludes", Range("a", 0.0, OpenClosed(0.0, 1)), "a: must be in (0, 1], got 0"},
		{"closed includes", Range("a", 1.0, OpenClosed(0.0, 1)), ""},
		{"half open", Range("a", 1.0, ClosedOpen(0.0, 1)), "a: must be in [0, 1), got 1"},
		{"open", Range("a", 0.5, Open(0.0, 1)), ""},
		{"closed", Range("a", 21, Closed(1, 20)), "a: must be in [1, 20], got 21"},
		{"distinct", Distinct("k", []int{1, 5, 10}), ""},
		{"duplicate", Distinct("k", []int{5, 10, 5, 10}), "k: duplicate value 5"},
		{"duplicate float", Distinct("alphas", []float64{0.1, 0.1}), "alphas: duplicate value 0.1"},
		{"NaN is in no range", Range("a", math.NaN(), Closed(0.0, 1)), "a: must be in [0, 1], got NaN"},
		{"only for, unused and unset", OnlyFor("k", false, false, "only for x, not %s; leave it 0", "y"), ""},
		{"only for, used", OnlyFor("k", true, true, "only for x, not %s; leave it 0", "x"), ""},
		{"only for, set but unused", OnlyFor("k", true, false, "only for x, not %s; leave it 0", "y"), "k: only for x, not y; leave it 0"},
		{"each in", EachIn("l", []int{1, 2}, Closed(1, 2)), ""},
		{"each in, one out", EachIn("l", []float64{0.5, 0}, OpenClosed(0.0, 1)), "l: element 1 must be in (0, 1], got 0"},
		{"enum for, used", EnumFor("c", colorRed, colors, true, "unused"), ""},
		{"enum for, used, unknown", EnumFor("c", color("x"), colors, true, "unused"), `c: unknown "x" (allowed: red, blue)`},
		{"enum for, unused and empty", EnumFor("c", color(""), colors, false, "unused"), ""},
		{"enum for, unused but set", EnumFor("c", colorRed, colors, false, "not for %s", "y"), "c: not for y"},
		{"require", Require("k", true, "broken"), ""},
		{"require fails", Require("k", false, "must be %s", "even"), "k: must be even"},
		{"first", First(nil, errors.New("a"), errors.New("b")), "a"},
		{"first of none", First(nil, nil), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if tt.err != nil {
				got = tt.err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

type colorDef struct {
	name color
	rgb  int
}

func TestColumn(t *testing.T) {
	rows := []colorDef{{colorRed, 0xff0000}, {colorBlue, 0xff}}
	got := Column(rows, func(r colorDef) color { return r.name })
	if len(got) != 2 || got[0] != colorRed || got[1] != colorBlue {
		t.Errorf("got %v, want [red blue]", got)
	}
}

func TestDefault(t *testing.T) {
	n, s := 0, "set"
	Default(&n, 5)
	Default(&s, "default")
	if n != 5 || s != "set" {
		t.Errorf("got %d, %q; want 5, \"set\"", n, s)
	}
}

func ExampleOneOf() {
	type Shape string
	shapes := []Shape{"circle", "square"}
	fmt.Println(OneOf("shape", Shape("triangle"), shapes))
	// Output: shape: unknown "triangle" (allowed: circle, square)
}
