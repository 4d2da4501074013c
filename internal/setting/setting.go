package setting

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// UnknownError is a name that is not one of an enum's names. Its message, without the key
// (the TOML decoder adds the line and the key), lists the allowed names.
type UnknownError struct {
	Value   string
	Allowed []string
}

// UnknownPrefix begins the message of every UnknownError: a decoder's error that begins with it
// (the TOML decoder keeps only the message) lacks the key.
const UnknownPrefix = "unknown "

func (e *UnknownError) Error() string {
	msg := fmt.Sprintf("%s%q (allowed: %s)", UnknownPrefix, e.Value, strings.Join(e.Allowed, ", "))
	if m := meant(e.Value, e.Allowed); m != "" {
		msg += "; " + m
	}
	return msg
}

// Names returns the names of an enum's values as strings, in order.
func Names[T ~string](values []T) []string {
	return Column(values, func(v T) string { return string(v) })
}

// Column returns f of every row of rows, in order: the names of an enum whose values are
// declared in a table of their properties.
func Column[R, T any](rows []R, f func(R) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}

// Unmarshal is the body of an enum type's UnmarshalText: it sets *v to text if text is one of
// values, and returns an *UnknownError otherwise. The empty text, which Resolve replaces by
// the default, is accepted (the workbench rejects a written empty value, see Default).
func Unmarshal[T ~string](v *T, text []byte, values []T) error {
	s := T(text)
	if s != "" && !slices.Contains(values, s) {
		return &UnknownError{Value: string(s), Allowed: Names(values)}
	}
	*v = s
	return nil
}

// OneOf returns nil if v is one of values, and otherwise the error
// `key: unknown "v" (allowed: a, b, ...)`.
func OneOf[T ~string](key string, v T, values []T) error {
	if slices.Contains(values, v) {
		return nil
	}
	return fmt.Errorf("%s: %w", key, &UnknownError{Value: string(v), Allowed: Names(values)})
}

// Default sets *p to def if *p is the zero value of its type.
func Default[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// Number is the type of a numeric setting.
type Number interface {
	~int | ~int64 | ~float64
}

// finite reports whether v is neither NaN nor infinite (always true for an integer).
func finite[T Number](v T) bool {
	f := float64(v)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

// Positive requires v > 0 and finite: `key: must be positive, got v` for an integer, `key: must
// be a positive number, got v` for a float.
func Positive[T Number](key string, v T) error {
	if v > 0 && finite(v) {
		return nil
	}
	if float64(T(1)/2) != 0 {
		return fmt.Errorf("%s: must be a positive number, got %v", key, v)
	}
	return fmt.Errorf("%s: must be positive, got %v", key, v)
}

// NotNegative requires v >= 0 and finite: `key: must be >= 0, got v`, followed by what 0
// means when meaning0 is not empty (`must be >= 0 (0 = no clipping)`).
func NotNegative[T Number](key string, v T, meaning0 string) error {
	if v >= 0 && finite(v) {
		return nil
	}
	if meaning0 != "" {
		return fmt.Errorf("%s: must be >= 0 (0 = %s), got %v", key, meaning0, v)
	}
	return fmt.Errorf("%s: must be >= 0, got %v", key, v)
}

// AtLeast requires v >= lo: `key: must be at least lo, got v`.
func AtLeast[T Number](key string, v, lo T) error {
	if v >= lo && finite(v) {
		return nil
	}
	return fmt.Errorf("%s: must be at least %v, got %v", key, lo, v)
}

// Interval is a range of allowed values; Lo and Hi are excluded when LoOpen and HiOpen.
type Interval[T Number] struct {
	Lo, Hi         T
	LoOpen, HiOpen bool
}

// Closed is [lo, hi].
func Closed[T Number](lo, hi T) Interval[T] { return Interval[T]{Lo: lo, Hi: hi} }

// OpenClosed is (lo, hi].
func OpenClosed[T Number](lo, hi T) Interval[T] { return Interval[T]{Lo: lo, Hi: hi, LoOpen: true} }

// ClosedOpen is [lo, hi).
func ClosedOpen[T Number](lo, hi T) Interval[T] { return Interval[T]{Lo: lo, Hi: hi, HiOpen: true} }

// Open is (lo, hi).
func Open[T Number](lo, hi T) Interval[T] {
	return Interval[T]{Lo: lo, Hi: hi, LoOpen: true, HiOpen: true}
}

// Contains reports whether v is in the interval.
func (r Interval[T]) Contains(v T) bool {
	aboveLo := v > r.Lo || (!r.LoOpen && v == r.Lo)
	belowHi := v < r.Hi || (!r.HiOpen && v == r.Hi)
	return aboveLo && belowHi
}

// String writes the interval as "[lo, hi)".
func (r Interval[T]) String() string {
	l, h := "[", "]"
	if r.LoOpen {
		l = "("
	}
	if r.HiOpen {
		h = ")"
	}
	return fmt.Sprintf("%s%v, %v%s", l, r.Lo, r.Hi, h)
}

// Range requires v in r: `key: must be in [lo, hi), got v`.
func Range[T Number](key string, v T, r Interval[T]) error {
	if r.Contains(v) {
		return nil
	}
	return fmt.Errorf("%s: must be in %v, got %v", key, r, v)
}

// EachIn requires every element of list in r: `key: element i must be in r, got v`.
func EachIn[T Number](key string, list []T, r Interval[T]) error {
	for i, v := range list {
		if !r.Contains(v) {
			return fmt.Errorf("%s: element %d must be in %v, got %v", key, i, r, v)
		}
	}
	return nil
}

// Distinct requires the values of list to differ: the error names key and the first value
// listed twice.
func Distinct[T comparable](key string, list []T) error {
	for i, v := range list {
		if slices.Contains(list[:i], v) {
			return fmt.Errorf("%s: duplicate value %v", key, v)
		}
	}
	return nil
}

// Require returns nil if ok, and otherwise the error "key: " followed by the formatted reason:
// the rule of a setting that no other helper states.
func Require(key string, ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...))
}

// OnlyFor rejects a value written for an option that the chosen variant does not use: when set
// and not used it returns the error "key: " followed by the formatted reason, e.g.
// OnlyFor("la_tau", s.LATau != 0, v == "logit_adjusted", "only for logit_adjusted, not
// variant %s; leave it 0", v).
func OnlyFor(key string, set, used bool, format string, args ...any) error {
	return Require(key, !set || used, format, args...)
}

// EnumFor checks an enum setting that only some variants use: when used, v must be one of
// values; otherwise it must be empty, and the error is "key: " followed by the formatted
// reason, as OnlyFor's.
func EnumFor[T ~string](key string, v T, values []T, used bool, format string, args ...any) error {
	if used {
		return OneOf(key, v, values)
	}
	return OnlyFor(key, v != "", false, format, args...)
}

// First returns the first non-nil error of errs, or nil. Resolve lists its checks as
// First(check1, check2, ...); every check is evaluated, so a check must not depend on an
// earlier one having passed.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Leaf returns the last part of a dotted TOML key, the name a key is shown by where its section
// is clear: "loss.temperature" gives "temperature", "seed" gives "seed".
func Leaf(key string) string {
	return key[strings.LastIndexByte(key, '.')+1:]
}
