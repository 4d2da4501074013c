package losses

import (
	"fmt"
	"testing"

	"gorgonia.org/tensor"
)

// TestFusedEqualsExpression: for every variant and option that has a fused
// kernel, the fused op and the variant's expression agree on value and
// gradient. float64 to 1e-9 relative; float32 to 1e-4 relative (of the value,
// and of ‖∂‖∞ for the gradient): the fused kernel computes in float64 from the
// float32 scores, the expression in float32 throughout, whose unit roundoff
// 6e-8 grows through the exponentials of logits up to |z| ≈ 30 and the
// sums over C ≤ 10 columns.
func TestFusedEqualsExpression(t *testing.T) {
	gen := newCaseGen(8, 9)
	for _, s := range allSettings(t) {
		if !s.hasFused() {
			continue
		}
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			fused := withImpl(s, ImplFused).newLoss(t, dt)
			expr := withImpl(s, ImplExpression).newLoss(t, dt)
			p := gen.gen(fused.Settings(), fused.Geometry(), 5, false)
			want, gWant := mustRun(t, fused, p.st, p.b, p.c, true, p.S)
			got, gGot := mustRun(t, expr, p.st, p.b, p.c, true, p.S)
			tol := 1e-9
			if dt == tensor.Float32 {
				tol = 1e-4
			}
			checkClose(t, fmt.Sprintf("expression vs fused %s %v", name(s), dt), got, want, gGot, gWant, tol)
		}
	}
}
