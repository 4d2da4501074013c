package models

import (
	"errors"
	"testing"
)

// vmError stands for the tape machine's error: an Err method around its own wrapping.
type vmError struct{ error }

func (e vmError) Err() error { return e.error }

// withContext stands for github.com/pkg/errors' wrapping, which the machine uses: a message
// around a cause.
type withContext struct {
	msg   string
	cause error
}

func (e withContext) Error() string { return e.msg + ": " + e.cause.Error() }
func (e withContext) Cause() error  { return e.cause }

// TestOpError: an op's error comes out of the tape machine's wrappers ("PC 3. Failed to
// execute instruction ...") as the op wrote it.
func TestOpError(t *testing.T) {
	op := errors.New("losses: step.Rewards[2] = NaN is not finite")
	err := vmError{withContext{"PC 3. Failed to execute instruction mul", op}}
	if got := opError(err); got != op {
		t.Errorf("opError = %q, want %q", got, op)
	}
	if got := opError(op); got != op {
		t.Errorf("opError of an op's own error = %q", got)
	}
}
