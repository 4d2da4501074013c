//go:build !noasm

#include "textflag.h"
#include "expneg_amd64.h"

// ZERO12 clears the accumulators Y0..Y11.
#define ZERO12 \
	VXORPS Y0, Y0, Y0   \
	VXORPS Y1, Y1, Y1   \
	VXORPS Y2, Y2, Y2   \
	VXORPS Y3, Y3, Y3   \
	VXORPS Y4, Y4, Y4   \
	VXORPS Y5, Y5, Y5   \
	VXORPS Y6, Y6, Y6   \
	VXORPS Y7, Y7, Y7   \
	VXORPS Y8, Y8, Y8   \
	VXORPS Y9, Y9, Y9   \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

// FMA6x16(a0, a1, a2, a3, a4, a5) adds the products of one l to Y0..Y11: the 16 values at DI
// times the 6 at the addresses a0..a5 (row r of the tile in Y(2r), Y(2r+1)).
#define FMA6x16(a0, a1, a2, a3, a4, a5) \
	VMOVUPS      (DI), Y12    \
	VMOVUPS      32(DI), Y13  \
	VBROADCASTSS a0, Y14      \
	VBROADCASTSS a1, Y15      \
	VFMADD231PS  Y12, Y14, Y0 \
	VFMADD231PS  Y13, Y14, Y1 \
	VFMADD231PS  Y12, Y15, Y2 \
	VFMADD231PS  Y13, Y15, Y3 \
	VBROADCASTSS a2, Y14      \
	VBROADCASTSS a3, Y15      \
	VFMADD231PS  Y12, Y14, Y4 \
	VFMADD231PS  Y13, Y14, Y5 \
	VFMADD231PS  Y12, Y15, Y6 \
	VFMADD231PS  Y13, Y15, Y7 \
	VBROADCASTSS a4, Y14      \
	VBROADCASTSS a5, Y15      \
	VFMADD231PS  Y12, Y14, Y8 \
	VFMADD231PS  Y13, Y14, Y9 \
	VFMADD231PS  Y12, Y15, Y10 \
	VFMADD231PS  Y13, Y15, Y11

// STEP6x16 adds the products of one l (6 values at SI, 16 at DI) to Y0..Y11 and advances SI, DI.
#define STEP6x16 \
	FMA6x16((SI), 4(SI), 8(SI), 12(SI), 16(SI), 20(SI)) \
	ADDQ $24, SI \
	ADDQ $64, DI

// func kernel6x16(k int, a, b, c *float32, ldc, panels int)
//
// For each of the panels panels of A (consecutive, 6k values each) and the rows of C they make
// (6 rows from c, then the next 6): Y0..Y11 accumulate the 6×16 block (row r in Y(2r),
// Y(2r+1)); per l, Y12 and Y13 hold the 16 items' values and Y14, Y15 broadcast the queries'.
TEXT ·kernel6x16(SB), NOSPLIT, $0-48
	MOVQ a+8(FP), SI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	MOVQ panels+40(FP), R10
	SHLQ $2, R8

kpanel:
	MOVQ k+0(FP), CX
	MOVQ b+16(FP), DI
	ZERO12

loop:
	STEP6x16
	DECQ CX
	JNZ  loop

	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y10, (DX)
	VMOVUPS Y11, 32(DX)
	ADDQ    R8, DX
	DECQ    R10
	JNZ     kpanel
	VZEROUPPER
	RET

// UPDATE2(lo, hi) sets the row of C at DX to lo, hi + beta·C (beta in Y15) and moves DX to the
// next row.
#define UPDATE2(lo, hi) \
	VFMADD231PS (DX), Y15, lo   \
	VFMADD231PS 32(DX), Y15, hi \
	VMOVUPS     lo, (DX)        \
	VMOVUPS     hi, 32(DX)      \
	ADDQ        R8, DX

// STORE2(lo, hi) sets the row of C at DX to lo, hi and moves DX to the next row.
#define STORE2(lo, hi) \
	VMOVUPS lo, (DX)   \
	VMOVUPS hi, 32(DX) \
	ADDQ    R8, DX

// GEMM_EPILOGUE sets the 6×16 tile of C at DX (row stride R8 bytes) to alpha·sum + beta·C from
// the sums in Y0..Y11, alpha broadcast in Y14 and beta in Y15, with C not read when AX (beta's
// bits without the sign) is zero, and returns.
#define GEMM_EPILOGUE \
	VMULPS Y14, Y0, Y0   \
	VMULPS Y14, Y1, Y1   \
	VMULPS Y14, Y2, Y2   \
	VMULPS Y14, Y3, Y3   \
	VMULPS Y14, Y4, Y4   \
	VMULPS Y14, Y5, Y5   \
	VMULPS Y14, Y6, Y6   \
	VMULPS Y14, Y7, Y7   \
	VMULPS Y14, Y8, Y8   \
	VMULPS Y14, Y9, Y9   \
	VMULPS Y14, Y10, Y10 \
	VMULPS Y14, Y11, Y11 \
	ANDL   $0x7fffffff, AX \
	JZ     gemm_store    \
	UPDATE2(Y0, Y1)      \
	UPDATE2(Y2, Y3)      \
	UPDATE2(Y4, Y5)      \
	UPDATE2(Y6, Y7)      \
	UPDATE2(Y8, Y9)      \
	UPDATE2(Y10, Y11)    \
	VZEROUPPER           \
	RET                  \
gemm_store:              \
	STORE2(Y0, Y1)       \
	STORE2(Y2, Y3)       \
	STORE2(Y4, Y5)       \
	STORE2(Y6, Y7)       \
	STORE2(Y8, Y9)       \
	STORE2(Y10, Y11)     \
	VZEROUPPER           \
	RET

// ZERO6Z(z0, z1, z2, z3, z4, z5) clears six AVX-512 accumulators.
#define ZERO6Z(z0, z1, z2, z3, z4, z5) \
	VPXORD z0, z0, z0 \
	VPXORD z1, z1, z1 \
	VPXORD z2, z2, z2 \
	VPXORD z3, z3, z3 \
	VPXORD z4, z4, z4 \
	VPXORD z5, z5, z5

// FMA6Z(p, z0, z1, z2, z3, z4, z5) adds the products of one l for one panel to z0..z5: the 16
// values in Z24 times each of the panel's 6 values at (p), broadcast from memory.
#define FMA6Z(p, z0, z1, z2, z3, z4, z5) \
	VFMADD231PS.BCST (p), Z24, z0   \
	VFMADD231PS.BCST 4(p), Z24, z1  \
	VFMADD231PS.BCST 8(p), Z24, z2  \
	VFMADD231PS.BCST 12(p), Z24, z3 \
	VFMADD231PS.BCST 16(p), Z24, z4 \
	VFMADD231PS.BCST 20(p), Z24, z5

// STORE6Z(z0, z1, z2, z3, z4, z5) sets six rows of C from DX on (row stride R8 bytes) to z0..z5
// and moves DX past them.
#define STORE6Z(z0, z1, z2, z3, z4, z5) \
	VMOVUPS z0, (DX) \
	ADDQ    R8, DX   \
	VMOVUPS z1, (DX) \
	ADDQ    R8, DX   \
	VMOVUPS z2, (DX) \
	ADDQ    R8, DX   \
	VMOVUPS z3, (DX) \
	ADDQ    R8, DX   \
	VMOVUPS z4, (DX) \
	ADDQ    R8, DX   \
	VMOVUPS z5, (DX) \
	ADDQ    R8, DX

// ZERO24Z clears the AVX-512 accumulators Z0..Z23.
#define ZERO24Z \
	ZERO6Z(Z0, Z1, Z2, Z3, Z4, Z5)       \
	ZERO6Z(Z6, Z7, Z8, Z9, Z10, Z11)     \
	ZERO6Z(Z12, Z13, Z14, Z15, Z16, Z17) \
	ZERO6Z(Z18, Z19, Z20, Z21, Z22, Z23)

// STEP24Z adds the products of one l to Z0..Z23 (row 6q+r of four packed panels in Z(6q+r)): the
// 16 values at DI, loaded into Z24, times panel q's 6 values at BX, R11, R12 and R13 for q = 0..3;
// it advances the four panel pointers and DI.
#define STEP24Z \
	VMOVUPS (DI), Z24                        \
	FMA6Z(BX, Z0, Z1, Z2, Z3, Z4, Z5)        \
	FMA6Z(R11, Z6, Z7, Z8, Z9, Z10, Z11)     \
	FMA6Z(R12, Z12, Z13, Z14, Z15, Z16, Z17) \
	FMA6Z(R13, Z18, Z19, Z20, Z21, Z22, Z23) \
	ADDQ $24, BX                             \
	ADDQ $24, R11                            \
	ADDQ $24, R12                            \
	ADDQ $24, R13                            \
	ADDQ $64, DI

// func kernel24x16(k int, a, b, c *float32, ldc, quads int)
//
// kernel6x16 with AVX-512, four panels of A at a time: for each of the quads groups of 4
// consecutive panels (6k values each, so R9 = 24k bytes apart), Z0..Z23 accumulate the 24×16
// block (row 6q+r of the group, panel q's row r, in Z(6q+r)); per l, Z24 holds the 16 items'
// values and each FMA broadcasts one query's value from memory, panel q's from BX, R11, R12 and
// R13. Every element gets the same fused multiply-adds in the same order as in kernel6x16, so
// the two give the same bits.
TEXT ·kernel24x16(SB), NOSPLIT, $0-48
	MOVQ  a+8(FP), SI
	MOVQ  c+24(FP), DX
	MOVQ  ldc+32(FP), R8
	MOVQ  quads+40(FP), R10
	SHLQ  $2, R8
	MOVQ  k+0(FP), R9
	IMULQ $24, R9

kquad:
	MOVQ k+0(FP), CX
	MOVQ b+16(FP), DI
	MOVQ SI, BX
	LEAQ (SI)(R9*1), R11
	LEAQ (SI)(R9*2), R12
	LEAQ (R11)(R9*2), R13
	ZERO24Z

kloop:
	STEP24Z
	DECQ CX
	JNZ  kloop

	STORE6Z(Z0, Z1, Z2, Z3, Z4, Z5)
	STORE6Z(Z6, Z7, Z8, Z9, Z10, Z11)
	STORE6Z(Z12, Z13, Z14, Z15, Z16, Z17)
	STORE6Z(Z18, Z19, Z20, Z21, Z22, Z23)
	LEAQ (SI)(R9*4), SI
	DECQ R10
	JNZ  kquad
	VZEROUPPER
	RET

// func gemm6x16(k int, a, b, c *float32, ldc int, alpha, beta float32)
//
// As kernel6x16, then C = alpha·sum + beta·C, with C not read when beta is ±0.
TEXT ·gemm6x16(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	ZERO12

gemm_loop:
	STEP6x16
	DECQ CX
	JNZ  gemm_loop

	VBROADCASTSS alpha+40(FP), Y14
	VBROADCASTSS beta+44(FP), Y15
	MOVL         beta+44(FP), AX
	GEMM_EPILOGUE

// func gemm6x16strided(k int, a *float32, rs, cs int, b, c *float32, ldc int, alpha, beta float32)
//
// As gemm6x16 with the panel of A read where it lies, value (r, l) at a + r·rs + l·cs (in
// floats) instead of a + 6·l + r: SI and R10 point at the current values of rows 0 and 3, R9 is
// rs and R11 cs in bytes, so rows 0..5 are at SI, SI+R9, SI+2·R9, R10, R10+R9, R10+2·R9. The
// products and their order are those of gemm6x16.
TEXT ·gemm6x16strided(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rs+16(FP), R9
	SHLQ $2, R9
	MOVQ cs+24(FP), R11
	SHLQ $2, R11
	LEAQ (R9)(R9*2), R10
	ADDQ SI, R10
	MOVQ b+32(FP), DI
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R8
	SHLQ $2, R8
	ZERO12

strided_loop:
	FMA6x16((SI), (SI)(R9*1), (SI)(R9*2), (R10), (R10)(R9*1), (R10)(R9*2))
	ADDQ R11, SI
	ADDQ R11, R10
	ADDQ $64, DI
	DECQ CX
	JNZ  strided_loop

	VBROADCASTSS alpha+56(FP), Y14
	VBROADCASTSS beta+60(FP), Y15
	MOVL         beta+60(FP), AX
	GEMM_EPILOGUE

// UPDATEZ(z) sets the row of C at DX to alpha·z + beta·C (alpha in Z25, beta in Z26), alpha·z
// rounded before the fused update, and moves DX to the next row.
#define UPDATEZ(z) \
	VMULPS      Z25, z, z    \
	VFMADD231PS (DX), Z26, z \
	VMOVUPS     z, (DX)      \
	ADDQ        R8, DX

// STOREZ(z) sets the row of C at DX to alpha·z (alpha in Z25) and moves DX to the next row.
#define STOREZ(z) \
	VMULPS  Z25, z, z \
	VMOVUPS z, (DX)   \
	ADDQ    R8, DX

// ROWS24Z(f) applies f to Z0..Z23 in order: the 24 rows of the tile.
#define ROWS24Z(f) \
	f(Z0)  \
	f(Z1)  \
	f(Z2)  \
	f(Z3)  \
	f(Z4)  \
	f(Z5)  \
	f(Z6)  \
	f(Z7)  \
	f(Z8)  \
	f(Z9)  \
	f(Z10) \
	f(Z11) \
	f(Z12) \
	f(Z13) \
	f(Z14) \
	f(Z15) \
	f(Z16) \
	f(Z17) \
	f(Z18) \
	f(Z19) \
	f(Z20) \
	f(Z21) \
	f(Z22) \
	f(Z23)

// GEMM24_EPILOGUE is GEMM_EPILOGUE for the 24×16 tile in Z0..Z23: C (at DX, row stride R8 bytes)
// = alpha·sum + beta·C with alpha broadcast in Z25 and beta in Z26, C not read when AX (beta's
// bits without the sign) is zero; the same operations per element as GEMM_EPILOGUE.
#define GEMM24_EPILOGUE \
	ANDL $0x7fffffff, AX \
	JZ   gemm24_store    \
	ROWS24Z(UPDATEZ)     \
	VZEROUPPER           \
	RET                  \
gemm24_store:            \
	ROWS24Z(STOREZ)      \
	VZEROUPPER           \
	RET

// PREFETCH24C asks for the 24 rows of 16 values of a tile of C, from AX (row stride R8 bytes),
// to be brought into the L2 cache while the tile's products are formed: both cache lines a row
// may straddle, two rows per PREFETCH2C. The epilogue's stores (and updates) then find the lines
// there rather than each waiting on its own miss; into L1 (PREFETCHT0) they would evict the
// panels where rows 4 KiB apart share a set. Advances AX by 24 rows.
#define PREFETCH24C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C \
	PREFETCH2C

#define PREFETCH2C \
	PREFETCHT1 (AX)         \
	PREFETCHT1 60(AX)       \
	PREFETCHT1 (AX)(R8*1)   \
	PREFETCHT1 60(AX)(R8*1) \
	LEAQ       (AX)(R8*2), AX

// func gemm24x16(k int, a, b, c *float32, ldc int, alpha, beta float32)
//
// gemm6x16 for four consecutive packed panels of A (6k values each) at once, in AVX-512
// registers, as kernel24x16 forms its sums: every element gets the fused multiply-adds of
// gemm6x16 in the same order, and the same update, so the two give the same bits.
TEXT ·gemm24x16(SB), NOSPLIT, $0-48
	MOVQ  k+0(FP), CX
	MOVQ  a+8(FP), BX
	MOVQ  CX, R9
	IMULQ $24, R9
	LEAQ  (BX)(R9*1), R11
	LEAQ  (BX)(R9*2), R12
	LEAQ  (R11)(R9*2), R13
	MOVQ  b+16(FP), DI
	MOVQ  c+24(FP), DX
	MOVQ  ldc+32(FP), R8
	SHLQ  $2, R8
	MOVQ  DX, AX
	PREFETCH24C
	ZERO24Z

gemm24_loop:
	STEP24Z
	DECQ CX
	JNZ  gemm24_loop

	VBROADCASTSS alpha+40(FP), Z25
	VBROADCASTSS beta+44(FP), Z26
	MOVL         beta+44(FP), AX
	GEMM24_EPILOGUE

// interleave6Idx holds, for each of the three vectors of 16 values that eight groups of six make
// (group l, row r at place 6l + r), the indices of VPERMT2PS into rows 0–1 (Z0: row 0 in lanes
// 0–7, row 1 in 8–15) and 2–3 (Z1, as 16 + lane), then those of VPERMPS into rows 4–5 (Z2) for
// the places of rows 4 and 5 (the masks 0x0c30, 0x30c3 and 0xc30c); places of other rows hold 0.
DATA interleave6Idx<>+0(SB)/8, $0x0000000800000000
DATA interleave6Idx<>+8(SB)/8, $0x0000001800000010
DATA interleave6Idx<>+16(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+24(SB)/8, $0x0000000900000001
DATA interleave6Idx<>+32(SB)/8, $0x0000001900000011
DATA interleave6Idx<>+40(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+48(SB)/8, $0x0000000a00000002
DATA interleave6Idx<>+56(SB)/8, $0x0000001a00000012
DATA interleave6Idx<>+64(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+72(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+80(SB)/8, $0x0000000800000000
DATA interleave6Idx<>+88(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+96(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+104(SB)/8, $0x0000000900000001
DATA interleave6Idx<>+112(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+120(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+128(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+136(SB)/8, $0x0000000b00000003
DATA interleave6Idx<>+144(SB)/8, $0x0000001b00000013
DATA interleave6Idx<>+152(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+160(SB)/8, $0x0000000c00000004
DATA interleave6Idx<>+168(SB)/8, $0x0000001c00000014
DATA interleave6Idx<>+176(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+184(SB)/8, $0x0000000d00000005
DATA interleave6Idx<>+192(SB)/8, $0x0000000a00000002
DATA interleave6Idx<>+200(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+208(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+216(SB)/8, $0x0000000b00000003
DATA interleave6Idx<>+224(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+232(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+240(SB)/8, $0x0000000c00000004
DATA interleave6Idx<>+248(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+256(SB)/8, $0x0000001d00000015
DATA interleave6Idx<>+264(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+272(SB)/8, $0x0000000e00000006
DATA interleave6Idx<>+280(SB)/8, $0x0000001e00000016
DATA interleave6Idx<>+288(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+296(SB)/8, $0x0000000f00000007
DATA interleave6Idx<>+304(SB)/8, $0x0000001f00000017
DATA interleave6Idx<>+312(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+320(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+328(SB)/8, $0x0000000d00000005
DATA interleave6Idx<>+336(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+344(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+352(SB)/8, $0x0000000e00000006
DATA interleave6Idx<>+360(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+368(SB)/8, $0x0000000000000000
DATA interleave6Idx<>+376(SB)/8, $0x0000000f00000007
GLOBL interleave6Idx<>(SB), RODATA|NOPTR, $384

// func interleave6(dst, src *float32, ld, n int)
//
// dst[l*6+r] = src[r*ld+l] for r < 6 and l < 8n, eight groups at a time with AVX-512: rows 0–1,
// 2–3 and 4–5 (SI, R9 and R10, R8 = ld bytes apart) are loaded eight values each into the halves
// of Z0, Z1 and Z2, and each 16 values of the 48 are two permutations of them.
TEXT ·interleave6(SB), NOSPLIT, $0-32
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    ld+16(FP), R8
	SHLQ    $2, R8
	MOVQ    n+24(FP), CX
	LEAQ    (SI)(R8*2), R9
	LEAQ    (R9)(R8*2), R10
	VMOVUPS interleave6Idx<>+0(SB), Z10
	VMOVUPS interleave6Idx<>+64(SB), Z11
	VMOVUPS interleave6Idx<>+128(SB), Z12
	VMOVUPS interleave6Idx<>+192(SB), Z13
	VMOVUPS interleave6Idx<>+256(SB), Z14
	VMOVUPS interleave6Idx<>+320(SB), Z15
	MOVL    $0x0c30, AX
	KMOVW   AX, K1
	MOVL    $0x30c3, AX
	KMOVW   AX, K2
	MOVL    $0xc30c, AX
	KMOVW   AX, K3

interleave6_loop:
	VMOVUPS      (SI), Y0
	VINSERTF64X4 $1, (SI)(R8*1), Z0, Z0
	VMOVUPS      (R9), Y1
	VINSERTF64X4 $1, (R9)(R8*1), Z1, Z1
	VMOVUPS      (R10), Y2
	VINSERTF64X4 $1, (R10)(R8*1), Z2, Z2
	VMOVAPS      Z0, Z3
	VPERMT2PS    Z1, Z10, Z3
	VPERMPS      Z2, Z11, K1, Z3
	VMOVUPS      Z3, (DI)
	VMOVAPS      Z0, Z4
	VPERMT2PS    Z1, Z12, Z4
	VPERMPS      Z2, Z13, K2, Z4
	VMOVUPS      Z4, 64(DI)
	VMOVAPS      Z0, Z5
	VPERMT2PS    Z1, Z14, Z5
	VPERMPS      Z2, Z15, K3, Z5
	VMOVUPS      Z5, 128(DI)
	ADDQ         $32, SI
	ADDQ         $32, R9
	ADDQ         $32, R10
	ADDQ         $192, DI
	DECQ         CX
	JNZ          interleave6_loop
	VZEROUPPER
	RET

// func countGE8(x []float32, lo, hi float32) (nlo, nhi int)
//
// Y2 and Y3 count per lane: a true comparison is all ones, -1 as an int32, and is subtracted.
TEXT ·countGE8(SB), NOSPLIT, $0-48
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS lo+24(FP), Y0
	VBROADCASTSS hi+28(FP), Y1
	VPXOR        Y2, Y2, Y2
	VPXOR        Y3, Y3, Y3
	SHRQ         $3, CX
	JZ           count_sum

count_loop:
	VMOVUPS (SI), Y4
	VCMPPS  $0x1d, Y0, Y4, Y5 // GE_OQ: x >= lo, false for NaN
	VCMPPS  $0x1d, Y1, Y4, Y6 // x >= hi
	VPSUBD  Y5, Y2, Y2
	VPSUBD  Y6, Y3, Y3
	ADDQ    $32, SI
	DECQ    CX
	JNZ     count_loop

count_sum:
	VEXTRACTI128 $1, Y2, X4
	VPADDD       X4, X2, X2
	VPSHUFD      $0x4e, X2, X4
	VPADDD       X4, X2, X2
	VPSHUFD      $0xb1, X2, X4
	VPADDD       X4, X2, X2
	VMOVD        X2, AX
	MOVQ         AX, nlo+32(FP)
	VEXTRACTI128 $1, Y3, X4
	VPADDD       X4, X3, X3
	VPSHUFD      $0x4e, X3, X4
	VPADDD       X4, X3, X3
	VPSHUFD      $0xb1, X3, X4
	VPADDD       X4, X3, X3
	VMOVD        X3, AX
	MOVQ         AX, nhi+40(FP)
	VZEROUPPER
	RET

// func indexIn8(x []float32, lo, hi float32) int
TEXT ·indexIn8(SB), NOSPLIT, $0-40
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS lo+24(FP), Y0
	VBROADCASTSS hi+28(FP), Y1
	XORQ         DX, DX

index_loop:
	CMPQ      DX, CX
	JGE       index_none
	VMOVUPS   (SI)(DX*4), Y4
	VCMPPS    $0x1d, Y0, Y4, Y5 // x >= lo
	VCMPPS    $0x11, Y1, Y4, Y6 // LT_OQ: x < hi, false for NaN
	VANDPS    Y5, Y6, Y5
	VMOVMSKPS Y5, AX
	TESTL     AX, AX
	JNZ       index_found
	ADDQ      $8, DX
	JMP       index_loop

index_found:
	BSFL AX, AX
	ADDQ AX, DX
	MOVQ DX, ret+32(FP)
	VZEROUPPER
	RET

index_none:
	MOVQ CX, ret+32(FP)
	VZEROUPPER
	RET

// func add8(dst, a, b []float32)
TEXT ·add8(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $3, CX
	JZ   add_done

add_loop:
	VMOVUPS (SI), Y0
	VADDPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     add_loop

add_done:
	VZEROUPPER
	RET

// func addRows16(acc *float64, rows *float64, stride int, idx *int32, n int)
//
// Y0..Y3 hold acc[0:16] while the rows are added in the order of idx: one VADDPD per four values
// and row, so each acc[j] is the sum formed one term at a time. DX is the stride in bytes.
TEXT ·addRows16(SB), NOSPLIT, $0-40
	MOVQ    acc+0(FP), AX
	MOVQ    rows+8(FP), SI
	MOVQ    stride+16(FP), DX
	SHLQ    $3, DX
	MOVQ    idx+24(FP), DI
	MOVQ    n+32(FP), CX
	VMOVUPD (AX), Y0
	VMOVUPD 32(AX), Y1
	VMOVUPD 64(AX), Y2
	VMOVUPD 96(AX), Y3
	TESTQ   CX, CX
	JZ      rows_done

rows_loop:
	MOVLQSX (DI), BX
	IMULQ   DX, BX
	VADDPD  (SI)(BX*1), Y0, Y0
	VADDPD  32(SI)(BX*1), Y1, Y1
	VADDPD  64(SI)(BX*1), Y2, Y2
	VADDPD  96(SI)(BX*1), Y3, Y3
	ADDQ    $4, DI
	DECQ    CX
	JNZ     rows_loop

rows_done:
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVUPD Y2, 64(AX)
	VMOVUPD Y3, 96(AX)
	VZEROUPPER
	RET

// ADAM_PERM is the order [0 1 4 5 2 3 6 7] in which VSHUFPS leaves the moments of 8 elements
// read from their interleaved pairs (m, v), and its own inverse.
DATA adamPerm<>+0(SB)/4, $0
DATA adamPerm<>+4(SB)/4, $1
DATA adamPerm<>+8(SB)/4, $4
DATA adamPerm<>+12(SB)/4, $5
DATA adamPerm<>+16(SB)/4, $2
DATA adamPerm<>+20(SB)/4, $3
DATA adamPerm<>+24(SB)/4, $6
DATA adamPerm<>+28(SB)/4, $7
GLOBL adamPerm<>(SB), RODATA|NOPTR, $32

// func adam8(w, grad, st *float32, n int, c *[8]float32)
//
// n/8 blocks of 8 elements; c holds scale, b1, 1−b1, b2, 1−b2, eps, stepSize and invSqrtBC2.
// Per block, the gradients and weights are permuted to the order of the
// moments (ADAM_PERM), the moments deinterleaved (VSHUFPS) and interleaved back (VUNPCK?PS).
TEXT ·adam8(SB), NOSPLIT, $0-40
	MOVQ         w+0(FP), DI
	MOVQ         grad+8(FP), SI
	MOVQ         st+16(FP), DX
	MOVQ         n+24(FP), CX
	MOVQ         c+32(FP), AX
	SHRQ         $3, CX
	JZ           adam_done
	VBROADCASTSS (AX), Y15
	VBROADCASTSS 4(AX), Y14
	VBROADCASTSS 8(AX), Y13
	VBROADCASTSS 12(AX), Y12
	VBROADCASTSS 16(AX), Y11
	VBROADCASTSS 20(AX), Y10
	VBROADCASTSS 24(AX), Y9
	VBROADCASTSS 28(AX), Y8
	VMOVUPS      adamPerm<>(SB), Y7

adam_loop:
	VPERMPS   (SI), Y7, Y0        // g
	VMULPS    Y15, Y0, Y0         // gi = g·scale
	VMOVUPS   (DX), Y1
	VMOVUPS   32(DX), Y2
	VSHUFPS   $0x88, Y2, Y1, Y3   // m
	VSHUFPS   $0xdd, Y2, Y1, Y4   // v
	VMULPS    Y3, Y14, Y5         // b1·m
	VMULPS    Y0, Y13, Y6         // (1−b1)·gi
	VADDPS    Y6, Y5, Y5          // m = b1·m + (1−b1)·gi
	VMULPS    Y4, Y12, Y4         // b2·v
	VMULPS    Y0, Y11, Y6         // (1−b2)·gi
	VMULPS    Y0, Y6, Y6          // (1−b2)·gi·gi
	VADDPS    Y6, Y4, Y4          // v = b2·v + (1−b2)·gi·gi
	VUNPCKLPS Y4, Y5, Y1
	VUNPCKHPS Y4, Y5, Y2
	VMOVUPS   Y1, (DX)
	VMOVUPS   Y2, 32(DX)
	VSQRTPS   Y4, Y6
	VMULPS    Y8, Y6, Y6          // sqrt(v)·invSqrtBC2
	VADDPS    Y10, Y6, Y6         // + eps
	VMULPS    Y5, Y9, Y3          // stepSize·m
	VDIVPS    Y6, Y3, Y3
	VPERMPS   (DI), Y7, Y0        // w
	VSUBPS    Y3, Y0, Y0
	VPERMPS   Y0, Y7, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $32, DI
	ADDQ      $32, SI
	ADDQ      $64, DX
	DECQ      CX
	JNZ       adam_loop

adam_done:
	VZEROUPPER
	RET

// func addReLU8(dst, a, b []float32)
//
// dst = max(a + b, 0) as Go's max has it: VMAXPS with the sum second returns the sum when it is
// a NaN or a zero, and adding +0 then turns −0 into +0.
TEXT ·addReLU8(SB), NOSPLIT, $0-72
	MOVQ   dst_base+0(FP), DI
	MOVQ   dst_len+8(FP), CX
	MOVQ   a_base+24(FP), SI
	MOVQ   b_base+48(FP), DX
	VXORPS Y1, Y1, Y1
	SHRQ   $3, CX
	JZ     relu_done

relu_loop:
	VMOVUPS (SI), Y0
	VADDPS  (DX), Y0, Y0
	VMAXPS  Y0, Y1, Y0
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     relu_loop

relu_done:
	VZEROUPPER
	RET

// func reluGrad8(dst, y, g []float32)
//
// dst = g where the int32 view of y is positive (y > 0, NaNs of either sign aside), else +0.
TEXT ·reluGrad8(SB), NOSPLIT, $0-72
	MOVQ   dst_base+0(FP), DI
	MOVQ   dst_len+8(FP), CX
	MOVQ   y_base+24(FP), SI
	MOVQ   g_base+48(FP), DX
	VPXOR  Y1, Y1, Y1
	SHRQ   $3, CX
	JZ     rgrad_done

rgrad_loop:
	VMOVUPS  (SI), Y0
	VPCMPGTD Y1, Y0, Y0
	VANDPS   (DX), Y0, Y0
	VMOVUPS  Y0, (DI)
	ADDQ     $32, SI
	ADDQ     $32, DX
	ADDQ     $32, DI
	DECQ     CX
	JNZ      rgrad_loop

rgrad_done:
	VZEROUPPER
	RET

// func dot8(a, b []float32) float32
//
// Σ a[i]·b[i] over a's length (a multiple of 8): lane j sums the products of the elements j,
// j+8, …, each product rounded before it is added (no fused multiply-add); then the lanes are
// summed as ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)), as dotGo does.
TEXT ·dot8(SB), NOSPLIT, $0-52
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), DX
	VXORPS Y0, Y0, Y0
	SHRQ   $3, CX
	JZ     dot_reduce

dot_loop:
	VMOVUPS (SI), Y1
	VMULPS  (DX), Y1, Y1
	VADDPS  Y1, Y0, Y0
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    CX
	JNZ     dot_loop

dot_reduce:
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+48(FP)
	RET

// func addScaled8(dst []float32, c float32, x []float32)
//
// dst += c·x, the product rounded before it is added.
TEXT ·addScaled8(SB), NOSPLIT, $0-56
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	VBROADCASTSS c+24(FP), Y1
	MOVQ         x_base+32(FP), SI
	SHRQ         $3, CX
	JZ           scaled_done

scaled_loop:
	VMULPS  (SI), Y1, Y0
	VADDPS  (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     scaled_loop

scaled_done:
	VZEROUPPER
	RET

// The constants of ExpNeg, each repeated in 4 lanes (32 bytes), in this order: log2e, roundMagic,
// ln2Hi, ln2Lo, −708, bits(roundMagic) − 1023 (an int64), then the Taylor coefficients 1/1!, …,
// 1/12! (1/n! at offset 160 + 32·n). The loss functions' kernels (lossfn_amd64.s) read it too.
// log2e
DATA ·expNegConst+0(SB)/8, $0x3ff71547652b82fe
DATA ·expNegConst+8(SB)/8, $0x3ff71547652b82fe
DATA ·expNegConst+16(SB)/8, $0x3ff71547652b82fe
DATA ·expNegConst+24(SB)/8, $0x3ff71547652b82fe
// roundMagic
DATA ·expNegConst+32(SB)/8, $0x4338000000000000
DATA ·expNegConst+40(SB)/8, $0x4338000000000000
DATA ·expNegConst+48(SB)/8, $0x4338000000000000
DATA ·expNegConst+56(SB)/8, $0x4338000000000000
// ln2Hi
DATA ·expNegConst+64(SB)/8, $0x3fe62e42fee00000
DATA ·expNegConst+72(SB)/8, $0x3fe62e42fee00000
DATA ·expNegConst+80(SB)/8, $0x3fe62e42fee00000
DATA ·expNegConst+88(SB)/8, $0x3fe62e42fee00000
// ln2Lo
DATA ·expNegConst+96(SB)/8, $0x3dea39ef35793c76
DATA ·expNegConst+104(SB)/8, $0x3dea39ef35793c76
DATA ·expNegConst+112(SB)/8, $0x3dea39ef35793c76
DATA ·expNegConst+120(SB)/8, $0x3dea39ef35793c76
// -708
DATA ·expNegConst+128(SB)/8, $0xc086200000000000
DATA ·expNegConst+136(SB)/8, $0xc086200000000000
DATA ·expNegConst+144(SB)/8, $0xc086200000000000
DATA ·expNegConst+152(SB)/8, $0xc086200000000000
// bits(roundMagic) − 1023, an int64
DATA ·expNegConst+160(SB)/8, $0x4337fffffffffc01
DATA ·expNegConst+168(SB)/8, $0x4337fffffffffc01
DATA ·expNegConst+176(SB)/8, $0x4337fffffffffc01
DATA ·expNegConst+184(SB)/8, $0x4337fffffffffc01
// 1
DATA ·expNegConst+192(SB)/8, $0x3ff0000000000000
DATA ·expNegConst+200(SB)/8, $0x3ff0000000000000
DATA ·expNegConst+208(SB)/8, $0x3ff0000000000000
DATA ·expNegConst+216(SB)/8, $0x3ff0000000000000
// 1/2
DATA ·expNegConst+224(SB)/8, $0x3fe0000000000000
DATA ·expNegConst+232(SB)/8, $0x3fe0000000000000
DATA ·expNegConst+240(SB)/8, $0x3fe0000000000000
DATA ·expNegConst+248(SB)/8, $0x3fe0000000000000
// 1/6
DATA ·expNegConst+256(SB)/8, $0x3fc5555555555555
DATA ·expNegConst+264(SB)/8, $0x3fc5555555555555
DATA ·expNegConst+272(SB)/8, $0x3fc5555555555555
DATA ·expNegConst+280(SB)/8, $0x3fc5555555555555
// 1/24
DATA ·expNegConst+288(SB)/8, $0x3fa5555555555555
DATA ·expNegConst+296(SB)/8, $0x3fa5555555555555
DATA ·expNegConst+304(SB)/8, $0x3fa5555555555555
DATA ·expNegConst+312(SB)/8, $0x3fa5555555555555
// 1/120
DATA ·expNegConst+320(SB)/8, $0x3f81111111111111
DATA ·expNegConst+328(SB)/8, $0x3f81111111111111
DATA ·expNegConst+336(SB)/8, $0x3f81111111111111
DATA ·expNegConst+344(SB)/8, $0x3f81111111111111
// 1/720
DATA ·expNegConst+352(SB)/8, $0x3f56c16c16c16c17
DATA ·expNegConst+360(SB)/8, $0x3f56c16c16c16c17
DATA ·expNegConst+368(SB)/8, $0x3f56c16c16c16c17
DATA ·expNegConst+376(SB)/8, $0x3f56c16c16c16c17
// 1/5040
DATA ·expNegConst+384(SB)/8, $0x3f2a01a01a01a01a
DATA ·expNegConst+392(SB)/8, $0x3f2a01a01a01a01a
DATA ·expNegConst+400(SB)/8, $0x3f2a01a01a01a01a
DATA ·expNegConst+408(SB)/8, $0x3f2a01a01a01a01a
// 1/40320
DATA ·expNegConst+416(SB)/8, $0x3efa01a01a01a01a
DATA ·expNegConst+424(SB)/8, $0x3efa01a01a01a01a
DATA ·expNegConst+432(SB)/8, $0x3efa01a01a01a01a
DATA ·expNegConst+440(SB)/8, $0x3efa01a01a01a01a
// 1/362880
DATA ·expNegConst+448(SB)/8, $0x3ec71de3a556c734
DATA ·expNegConst+456(SB)/8, $0x3ec71de3a556c734
DATA ·expNegConst+464(SB)/8, $0x3ec71de3a556c734
DATA ·expNegConst+472(SB)/8, $0x3ec71de3a556c734
// 1/3628800
DATA ·expNegConst+480(SB)/8, $0x3e927e4fb7789f5c
DATA ·expNegConst+488(SB)/8, $0x3e927e4fb7789f5c
DATA ·expNegConst+496(SB)/8, $0x3e927e4fb7789f5c
DATA ·expNegConst+504(SB)/8, $0x3e927e4fb7789f5c
// 1/39916800
DATA ·expNegConst+512(SB)/8, $0x3e5ae64567f544e4
DATA ·expNegConst+520(SB)/8, $0x3e5ae64567f544e4
DATA ·expNegConst+528(SB)/8, $0x3e5ae64567f544e4
DATA ·expNegConst+536(SB)/8, $0x3e5ae64567f544e4
// 1/479001600
DATA ·expNegConst+544(SB)/8, $0x3e21eed8eff8d898
DATA ·expNegConst+552(SB)/8, $0x3e21eed8eff8d898
DATA ·expNegConst+560(SB)/8, $0x3e21eed8eff8d898
DATA ·expNegConst+568(SB)/8, $0x3e21eed8eff8d898
GLOBL ·expNegConst(SB), RODATA|NOPTR, $576

// func expNegShift4(dst, x *float64, n int, shift float64, dst32 *float32) (sum float64)
//
// dst[i] = ExpNeg(x[i] − shift) for i < n, n a multiple of 4, four lanes at a time with the
// operations of ExpNeg in its order (no fused multiply-add): Y15 holds the shift, Y9..Y14 the
// constants used outside the polynomial but −708; the lanes below −708 are cleared at the end.
// With dst32 not nil, the values are stored narrowed to float32 at dst32 instead (dst is not
// written). sum is Σ dst[i] added one term at a time in the order of i (in X10, the lanes taken
// out one by one), a chain of additions that overlaps the next lanes' exponentials.
TEXT ·expNegShift4(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         dst32+32(FP), DX
	VMOVSD       sum0+40(FP), X10
	SHRQ         $2, CX
	JZ           expneg_done
	VBROADCASTSD shift+24(FP), Y15
	LEAQ         ·expNegConst(SB), AX
	VMOVUPD      (AX), Y14            // log2e
	VMOVUPD      32(AX), Y13          // roundMagic
	VMOVUPD      64(AX), Y12          // ln2Hi
	VMOVUPD      96(AX), Y11          // ln2Lo
	VMOVUPD      160(AX), Y9          // bits(roundMagic) − 1023

expneg_loop:
	VMOVUPD (SI), Y0
	VSUBPD  Y15, Y0, Y0               // x − shift
	EXPNEG(Y14, Y13, Y12, Y11, Y9)
	TESTQ   DX, DX
	JNZ     expneg_narrow
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	JMP     expneg_sum

expneg_narrow:
	VCVTPD2PSY Y0, X4
	VMOVUPS    X4, (DX)
	ADDQ       $16, DX

expneg_sum:
	ADDPAIR(X0)                       // sum += lanes 0, 1
	VEXTRACTF128 $1, Y0, X2
	ADDPAIR(X2)                       // lanes 2, 3
	ADDQ    $32, SI
	DECQ    CX
	JNZ     expneg_loop

expneg_done:
	VMOVSD  X10, sum+48(FP)
	VZEROUPPER
	RET

// func expNegShift8(dst, x *float64, n int, shift float64, dst32 *float32) (sum float64)
//
// expNegShift4 (from a sum of 0) for n a multiple of 8, eight values at a time in AVX-512
// registers (EXPNEGZ): the same values, the sum added one lane at a time in the order of the
// values.
TEXT ·expNegShift8(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         dst32+32(FP), DX
	VXORPD       X10, X10, X10
	SHRQ         $3, CX
	JZ           expneg8_done
	LEAQ         ·expNegConst(SB), AX
	VBROADCASTSD shift+24(FP), Z15
	VBROADCASTSD (AX), Z14            // log2e
	VBROADCASTSD 32(AX), Z13          // roundMagic
	VBROADCASTSD 64(AX), Z12          // ln2Hi
	VBROADCASTSD 96(AX), Z11          // ln2Lo
	VBROADCASTSD 160(AX), Z9          // bits(roundMagic) − 1023

expneg8_loop:
	VMOVUPD (SI), Z0
	VSUBPD  Z15, Z0, Z0               // x − shift
	EXPNEGZ
	TESTQ   DX, DX
	JNZ     expneg8_narrow
	VMOVUPD Z0, (DI)
	ADDQ    $64, DI
	JMP     expneg8_sum

expneg8_narrow:
	VCVTPD2PS Z0, Y4
	VMOVUPS   Y4, (DX)
	ADDQ      $32, DX

expneg8_sum:
	ADDPAIR(X0)                       // sum += lanes 0, 1
	VEXTRACTF32X4 $1, Z0, X2
	ADDPAIR(X2)                       // lanes 2, 3
	VEXTRACTF32X4 $2, Z0, X2
	ADDPAIR(X2)                       // lanes 4, 5
	VEXTRACTF32X4 $3, Z0, X2
	ADDPAIR(X2)                       // lanes 6, 7
	ADDQ          $64, SI
	DECQ          CX
	JNZ           expneg8_loop

expneg8_done:
	VMOVSD     X10, sum+40(FP)
	VZEROUPPER
	RET

// func mul8(dst, a, b []float32)
//
// dst = a·b.
TEXT ·mul8(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $3, CX
	JZ   mul_done

mul_loop:
	VMOVUPS (SI), Y0
	VMULPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     mul_loop

mul_done:
	VZEROUPPER
	RET

// func mulScalar8(dst, x []float32, c float32)
//
// dst = x·c.
TEXT ·mulScalar8(SB), NOSPLIT, $0-52
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSS c+48(FP), Y1
	SHRQ         $3, CX
	JZ           mulsc_done

mulsc_loop:
	VMULPS  (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     mulsc_loop

mulsc_done:
	VZEROUPPER
	RET

// func addScalar8(dst, x []float32, c float32)
//
// dst = x + c.
TEXT ·addScalar8(SB), NOSPLIT, $0-52
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSS c+48(FP), Y1
	SHRQ         $3, CX
	JZ           addsc_done

addsc_loop:
	VADDPS  (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     addsc_loop

addsc_done:
	VZEROUPPER
	RET

// func narrow4(dst *float32, x *float64, n int)
//
// dst[i] = float32(x[i]) for i < n, n a multiple of 4 (rounded to nearest even, as Go converts).
TEXT ·narrow4(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ   narrow_done

narrow_loop:
	VCVTPD2PSY (SI), X0
	VMOVUPS    X0, (DI)
	ADDQ       $32, SI
	ADDQ       $16, DI
	DECQ       CX
	JNZ        narrow_loop

narrow_done:
	VZEROUPPER
	RET

// TRANSPOSE8 transposes the 8×8 block whose rows are Y0..Y7 into Y8..Y15 (Y8 holds column 0),
// overwriting Y0..Y7.
#define TRANSPOSE8 \
	VUNPCKLPS  Y1, Y0, Y8         \
	VUNPCKHPS  Y1, Y0, Y9         \
	VUNPCKLPS  Y3, Y2, Y10        \
	VUNPCKHPS  Y3, Y2, Y11        \
	VUNPCKLPS  Y5, Y4, Y12        \
	VUNPCKHPS  Y5, Y4, Y13        \
	VUNPCKLPS  Y7, Y6, Y14        \
	VUNPCKHPS  Y7, Y6, Y15        \
	VSHUFPS    $0x44, Y10, Y8, Y0 \
	VSHUFPS    $0xee, Y10, Y8, Y1 \
	VSHUFPS    $0x44, Y11, Y9, Y2 \
	VSHUFPS    $0xee, Y11, Y9, Y3 \
	VSHUFPS    $0x44, Y14, Y12, Y4 \
	VSHUFPS    $0xee, Y14, Y12, Y5 \
	VSHUFPS    $0x44, Y15, Y13, Y6 \
	VSHUFPS    $0xee, Y15, Y13, Y7 \
	VPERM2F128 $0x20, Y4, Y0, Y8  \
	VPERM2F128 $0x20, Y5, Y1, Y9  \
	VPERM2F128 $0x20, Y6, Y2, Y10 \
	VPERM2F128 $0x20, Y7, Y3, Y11 \
	VPERM2F128 $0x31, Y4, Y0, Y12 \
	VPERM2F128 $0x31, Y5, Y1, Y13 \
	VPERM2F128 $0x31, Y6, Y2, Y14 \
	VPERM2F128 $0x31, Y7, Y3, Y15

// LOAD8(p, q) loads 8 floats from each of the rows at p, p+s, p+2s, p+3s, q, q+s, q+2s, q+3s
// (R8 = s, R9 = 3s bytes) into Y0..Y7.
#define LOAD8(p, q) \
	VMOVUPS (p), Y0        \
	VMOVUPS (p)(R8*1), Y1  \
	VMOVUPS (p)(R8*2), Y2  \
	VMOVUPS (p)(R9*1), Y3  \
	VMOVUPS (q), Y4        \
	VMOVUPS (q)(R8*1), Y5  \
	VMOVUPS (q)(R8*2), Y6  \
	VMOVUPS (q)(R9*1), Y7

// STORE8(off) stores Y8..Y15 at DI+off, DI+off+64, …, DI+off+448: 8 groups of 16 floats.
#define STORE8(off) \
	VMOVUPS Y8, off(DI)      \
	VMOVUPS Y9, off+64(DI)   \
	VMOVUPS Y10, off+128(DI) \
	VMOVUPS Y11, off+192(DI) \
	VMOVUPS Y12, off+256(DI) \
	VMOVUPS Y13, off+320(DI) \
	VMOVUPS Y14, off+384(DI) \
	VMOVUPS Y15, off+448(DI)

// func interleave16(dst, src *float32, ld, n, pre int)
//
// dst[l*16+r] = src[r*ld+l] for r < 16, l < n (n a multiple of 8): per 8 values of l, rows 0..7
// and rows 8..15 each transposed as an 8×8 block into the halves of 8 groups of 16. First the
// pre values that follow the 16 rows are prefetched (the next panel where the rows lie one after
// another: the ranking's items, in the next page when ld = 64, where the hardware prefetcher
// stops); prefetching never faults.
TEXT ·interleave16(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ n+24(FP), CX
	SHLQ $2, R8                // s: a row, in bytes
	LEAQ (R8)(R8*2), R9        // 3s
	LEAQ (SI)(R8*4), R10       // row 4
	LEAQ (R10)(R8*4), R11      // row 8
	LEAQ (R11)(R8*4), R12      // row 12
	LEAQ (R12)(R8*4), AX       // row 16
	MOVQ pre+32(FP), BX
	LEAQ (AX)(BX*4), BX
	CMPQ AX, BX
	JAE  prefetch_done

prefetch_loop:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, BX
	JB         prefetch_loop

prefetch_done:
	SHRQ $3, CX
	JZ   pack_done

pack_loop:
	LOAD8(SI, R10)
	TRANSPOSE8
	STORE8(0)
	LOAD8(R11, R12)
	TRANSPOSE8
	STORE8(32)
	ADDQ $32, SI
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $512, DI
	DECQ CX
	JNZ  pack_loop

pack_done:
	VZEROUPPER
	RET

// func widenMax4(dst *float64, x *float32, n int, m float64) float64
//
// dst[i] = float64(x[i]) for i < n (n a multiple of 4), and the largest of m and the x[i] by
// `if v > m { m = v }` taken lane by lane (VMAXPD with the running maximum second returns it
// for a NaN or an equal value), the four lanes combined the same way at the end.
TEXT ·widenMax4(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD m+24(FP), Y1
	SHRQ         $2, CX
	JZ           widen_done

widen_loop:
	VCVTPS2PD (SI), Y0
	VMOVUPD   Y0, (DI)
	VMAXPD    Y1, Y0, Y1            // lane: v > m ? v : m
	ADDQ      $16, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       widen_loop

widen_done:
	VEXTRACTF128 $1, Y1, X2
	VMAXPD       X1, X2, X1
	VPERMILPD    $1, X1, X2
	VMAXSD       X1, X2, X1
	VMOVSD       X1, ret+32(FP)
	VZEROUPPER
	RET

// func mulWide4(dst, x *float32, n int, c float64)
//
// dst[i] = float32(float64(x[i])·c) for i < n, n a multiple of 4.
TEXT ·mulWide4(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD c+24(FP), Y1
	SHRQ         $2, CX
	JZ           mulwide_done

mulwide_loop:
	VCVTPS2PD  (SI), Y0
	VMULPD     Y1, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)
	ADDQ       $16, SI
	ADDQ       $16, DI
	DECQ       CX
	JNZ        mulwide_loop

mulwide_done:
	VZEROUPPER
	RET

// PREFETCH_AHEAD asks the caches for the cache lines of the groups of the row 16 rows ahead,
// BX bytes from SI + R9 (PREFETCHT0 never faults, so rows past the source's end are harmless);
// it clobbers AX and DX.
#define PREFETCH_AHEAD \
	LEAQ       (SI)(R9*1), AX   \
	LEAQ       -1(AX)(BX*1), DX \
	PREFETCHT0 (DX)             \
	ANDQ       $-64, DX         \
prefetch_ahead_loop:            \
	PREFETCHT0 (AX)             \
	ADDQ       $64, AX          \
	CMPQ       AX, DX           \
	JBE        prefetch_ahead_loop

// func copyStrided6(dst, src *float32, ld, n, panels int)
//
// For each group l (SI at its first value, DI at its place in the first panel), the panels'
// groups in turn: four values in X0 and two in AX, R10 = 24n bytes from one panel to the next;
// BX is the bytes of a row's groups and R9 sixteen rows, for PREFETCH_AHEAD.
TEXT ·copyStrided6(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ n+24(FP), CX
	SHLQ $2, R8
	MOVQ CX, R10
	IMULQ $24, R10
	MOVQ panels+32(FP), BX
	IMULQ $24, BX
	MOVQ R8, R9
	SHLQ $4, R9

copy6_loop:
	MOVQ panels+32(FP), R11
	MOVQ SI, R12
	MOVQ DI, R13
	PREFETCH_AHEAD

copy6_panel:
	VMOVUPS (R12), X0
	MOVQ    16(R12), AX
	VMOVUPS X0, (R13)
	MOVQ    AX, 16(R13)
	ADDQ    $24, R12
	ADDQ    R10, R13
	DECQ    R11
	JNZ     copy6_panel
	ADDQ    R8, SI
	ADDQ    $24, DI
	DECQ    CX
	JNZ     copy6_loop
	VZEROUPPER
	RET

// func copyStrided16(dst, src *float32, ld, n, panels int)
//
// copyStrided6 for groups of 16 values, in Y0 and Y1; R10 = 64n bytes from one panel to the next.
TEXT ·copyStrided16(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ n+24(FP), CX
	SHLQ $2, R8
	MOVQ CX, R10
	SHLQ $6, R10
	MOVQ panels+32(FP), BX
	SHLQ $6, BX
	MOVQ R8, R9
	SHLQ $4, R9

copy16_loop:
	MOVQ panels+32(FP), R11
	MOVQ SI, R12
	MOVQ DI, R13
	PREFETCH_AHEAD

copy16_panel:
	VMOVUPS (R12), Y0
	VMOVUPS 32(R12), Y1
	VMOVUPS Y0, (R13)
	VMOVUPS Y1, 32(R13)
	ADDQ    $64, R12
	ADDQ    R10, R13
	DECQ    R11
	JNZ     copy16_panel
	ADDQ    R8, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     copy16_loop
	VZEROUPPER
	RET

// func prefetch(x *float32, n int)
//
// PREFETCHT0 at x and every 64 bytes up to x + 4n (its last line included).
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*4), DX

prefetch_loop:
	PREFETCHT0 (SI)
	ADDQ       $64, SI
	CMPQ       SI, DX
	JB         prefetch_loop
	RET
