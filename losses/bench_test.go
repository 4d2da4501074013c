package losses

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

const benchB = 1024

// benchProblem is a B = 1024 problem over a 20000-item Zipf corpus.
func benchProblem(b *testing.B, tc tcase) (*Loss, problem) {
	l := tc.newLoss(b, tensor.Float32)
	p := newCaseGen(9, 20000).gen(l.Settings(), l.Geometry(), benchB, false)
	return l, p
}

// cpuTime is the user+system CPU time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds examples/s and the CPU time per op (all goroutines), which is
// less sensitive than ns/op to other processes sharing the 2 cores.
func report(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(benchB)*float64(b.N)/b.Elapsed().Seconds(), "examples/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkLoss: forward + backward of the loss node, B = 1024, float32, on a
// tape machine (graph scores → loss → ∂loss/∂scores), for every variant with
// a fused kernel twice, side by side: the fused node (impl = fused) and the
// expression (impl = expression: the same loss built from the primitives of
// the expressions and differentiated by autodiff), so that the cost of
// writing a loss as its formula is measured for each; and the variants that
// are expressions only: logq_corrected, gbce (on 1023 uniform negatives, the
// in-batch matrix's size), psl with each surrogate and debiased_contrastive.
func BenchmarkLoss(b *testing.B) {
	var cases []tcase
	mixed256 := candidates.Geometry{Sampler: "mixed", Layout: candidates.Diagonal, Extra: 256}
	for _, tc := range []tcase{
		{Settings{Variant: VariantPlain}, inBatchG},
		{Settings{Variant: VariantLogQ}, inBatchG},
		{Settings{Variant: VariantLogQ, RemoveAccidentalHits: true}, inBatchG},
		{Settings{Variant: VariantImportance}, inBatchG},
		{Settings{Variant: VariantTail}, mixed256},
		{Settings{Variant: VariantNCE}, inBatchG},
		{Settings{Variant: VariantTail, Form: FormDecoupled}, inBatchG},
		{Settings{Variant: VariantMSEGramian}, inBatchG},
		{Settings{Variant: VariantFull}, corpusG},
	} {
		for _, im := range []Impl{ImplFused, ImplExpression} {
			cases = append(cases, withImpl(tc, im))
		}
	}
	uniformB := candidates.Geometry{Sampler: "uniform", Layout: candidates.First, Extra: benchB - 1, Uniform: true}
	cases = append(cases, tcase{Settings{Variant: VariantLogQCorrected}, inBatchG},
		tcase{Settings{Variant: VariantGBCE}, uniformB},
		tcase{Settings{Variant: VariantDebiasedContrastive}, inBatchG})
	for _, sg := range surrogates {
		cases = append(cases, tcase{Settings{Variant: VariantPSL, Options: map[string]any{"surrogate": string(sg)}}, inBatchG})
	}
	for _, tc := range cases {
		l, p := benchProblem(b, tc)
		n := name(tcase{l.Settings(), l.Geometry()})
		if tc.Options != nil {
			n += fmt.Sprint("/", tc.Options)
		}
		b.Run(n, func(b *testing.B) {
			h := newHarness(b, l, p.st, p.b, p.c, true)
			if err := gorgonia.Let(h.scores, dense(tensor.Float32, p.S, p.b, p.c)); err != nil {
				b.Fatal(err)
			}
			if err := h.vm.RunAll(); err != nil { // warm-up: the op's buffers are allocated once
				b.Fatal(err)
			}
			h.vm.Reset()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if err := h.vm.RunAll(); err != nil {
					b.Fatal(err)
				}
				h.vm.Reset()
			}
			report(b, cpu0)
		})
	}
}
