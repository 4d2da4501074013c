// Package simd holds the shared low-level vector routines: a 6×16 float32 matrix-product
// micro-kernel (used by package metrics for its score tiles and, with alpha and beta, packed or
// strided, by internal/gemm for general matrix products, whose panels CopyStrided packs), the
// threshold counts of metrics' ranking, the row sums of its bootstrap (AddRows), models' Adam
// update (Adam), the elementwise loops of the towers and of the losses' primitives, the
// exponentials of the losses' softmax rows with their maximum, narrowing and scaling (ExpNeg,
// ExpNegShift, ExpNegShiftTo, AffineMax, WidenMax, Narrow, MulWide), the losses' softplus row sums,
// integer powers, masked maxima and sums (SoftplusRow, PowRow, MaskedMax, Sum: in float64, with a
// stated order of summation) and surrogate activations with their derivatives (Surrogates: float32
// operands in float32 arithmetic, with Cephes' expf and atanf, to a stated accuracy), the
// transposition of the ranking's item panels and the matrix products' panels (Interleave) and a
// cache hint (Prefetch). The vector lanes give the plain-Go loops' bits. On amd64 they are Go
// assembly using AVX2 and FMA (Go assembly cannot live in a package that uses cgo, as metrics and
// models do under the openblas build tag), with the same loops in plain Go on processors without
// them (Kernel then reports false); where the processor also has AVX-512, Kernel6x16 and Gemm6x16
// run four panels at a time in its 32 wider registers, giving the same bits (Wide). On other
// architectures, and with the noasm build tag, the loops are plain Go and the kernels do not exist
// (Kernel reports false).
//
// Forcing the portable fallbacks: the noasm build tag (go test -tags noasm ./...) compiles every
// CPU-specific path of the module out (this package, internal/gemm, metrics' kernel backend, and
// the assembly of gonum and gorgonia's tensor, which honour the same tag); GODEBUG=cpu.avx2=off
// (read by golang.org/x/sys/cpu at start-up) makes a normal build take its run-time fallbacks,
// as on a processor without AVX2, and GODEBUG=cpu.avx512f=off its AVX2 kernel where AVX-512 is
// there. The tests compare the vector routines with plain-Go loops and
// the kernels with float64 sums, so both builds check the same statements; CI runs both.
package simd
