package models

import "fmt"

// NonFiniteError stops training at a step whose loss or gradient norm is NaN or infinite,
// before the step's update is applied.
type NonFiniteError struct {
	Step, Epoch int     // the global step (1-based) and its epoch
	Quantity    string  // "loss" or "gradient norm"
	Value       float64 // NaN, +Inf or -Inf
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("models: step %d (epoch %d): %s is %v", e.Step, e.Epoch, e.Quantity, e.Value)
}

// opError returns the error an op of the graph returned, from the tape machine's error, which
// wraps it with its own context (and an Err method rather than Unwrap).
func opError(err error) error {
	if e, ok := err.(interface{ Err() error }); ok {
		return e.Err()
	}
	return err
}
