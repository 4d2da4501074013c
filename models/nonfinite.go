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
// wraps it with its own context (an Err method rather than Unwrap, around messages such as "PC
// 12. Failed to execute instruction ..." that say nothing to a user, with Cause methods).
func opError(err error) error {
	if e, ok := err.(interface{ Err() error }); ok {
		err = e.Err()
	}
	for {
		c, ok := err.(interface{ Cause() error })
		if !ok || c.Cause() == nil || c.Cause() == err {
			return err
		}
		err = c.Cause()
	}
}
