package losses

import "fmt"

// NonFiniteError is the error of a fused loss whose value is NaN or infinite (non-finite scores,
// or scores whose scale overflows the exponential).
type NonFiniteError struct {
	Variant Variant
	Value   float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("losses: %s loss is %v (non-finite scores?)", e.Variant, e.Value)
}
