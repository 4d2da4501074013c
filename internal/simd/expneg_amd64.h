// EXPNEG(log2e, magic, ln2hi, ln2lo, bias) sets the four lanes of Y0 to ExpNeg of theirs, with
// ExpNeg's operations in its order (no fused multiply-add), so that each lane gives its bits;
// lanes below −708 become 0. AX points to ·expNegConst (simd_amd64.s), whose values the
// parameters give too, each a register or a memory operand: log2e, roundMagic, ln2Hi, ln2Lo
// and bits(roundMagic) − 1023. Clobbers Y1..Y8. The steps: t = x·log2e + roundMagic, k = t −
// roundMagic, r = x − k·ln2Hi − k·ln2Lo; b0 = (1 + r) + r²·(1/2 + r/3!), b1 = (1/4! + r/5!) +
// r²·(1/6! + r/7!), b2 = (1/8! + r/9!) + r²·(1/10! + r/11!), p = b0 + r⁴·(b1 + r⁴·(b2 +
// r⁴/12!)); 2^k from the bits of t, (bits(t) − bits(roundMagic) + 1023) << 52, times p.
#define EXPNEG(log2e, magic, ln2hi, ln2lo, bias) \
	VCMPPD  $0x11, 128(AX), Y0, Y8 \
	VMULPD  log2e, Y0, Y1          \
	VADDPD  magic, Y1, Y1          \
	VSUBPD  magic, Y1, Y2          \
	VMULPD  ln2hi, Y2, Y3          \
	VSUBPD  Y3, Y0, Y3             \
	VMULPD  ln2lo, Y2, Y2          \
	VSUBPD  Y2, Y3, Y3             \
	VMULPD  Y3, Y3, Y4             \
	VMULPD  Y4, Y4, Y5             \
	VMULPD  256(AX), Y3, Y6        \
	VADDPD  224(AX), Y6, Y6        \
	VMULPD  Y6, Y4, Y6             \
	VADDPD  192(AX), Y3, Y7        \
	VADDPD  Y6, Y7, Y6             \
	VMULPD  384(AX), Y3, Y7        \
	VADDPD  352(AX), Y7, Y7        \
	VMULPD  Y7, Y4, Y7             \
	VMULPD  320(AX), Y3, Y0        \
	VADDPD  288(AX), Y0, Y0        \
	VADDPD  Y7, Y0, Y7             \
	VMULPD  512(AX), Y3, Y0        \
	VADDPD  480(AX), Y0, Y0        \
	VMULPD  Y0, Y4, Y0             \
	VMULPD  448(AX), Y3, Y2        \
	VADDPD  416(AX), Y2, Y2        \
	VADDPD  Y0, Y2, Y0             \
	VMULPD  544(AX), Y5, Y2        \
	VADDPD  Y2, Y0, Y0             \
	VMULPD  Y0, Y5, Y0             \
	VADDPD  Y0, Y7, Y0             \
	VMULPD  Y0, Y5, Y0             \
	VADDPD  Y0, Y6, Y0             \
	VPSUBQ  bias, Y1, Y1           \
	VPSLLQ  $52, Y1, Y1            \
	VMULPD  Y1, Y0, Y0             \
	VANDNPD Y0, Y8, Y0

// EXPNEGZ is EXPNEG on the eight lanes of Z0 in AVX-512 registers, the same operations in the
// same order on each lane (so the same bits): Z14, Z13, Z12, Z11 and Z9 hold log2e, roundMagic,
// ln2Hi, ln2Lo and bits(roundMagic) − 1023 in every lane, the other constants are broadcast from
// ·expNegConst at AX, and the lanes below −708 are zeroed by the mask K1 of the others (NaNs
// kept, as EXPNEG's ANDN keeps them). Clobbers Z1..Z7 and K1.
#define EXPNEGZ \
	VCMPPD.BCST $0x15, 128(AX), Z0, K1 \
	VMULPD      Z14, Z0, Z1            \
	VADDPD      Z13, Z1, Z1            \
	VSUBPD      Z13, Z1, Z2            \
	VMULPD      Z12, Z2, Z3            \
	VSUBPD      Z3, Z0, Z3             \
	VMULPD      Z11, Z2, Z2            \
	VSUBPD      Z2, Z3, Z3             \
	VMULPD      Z3, Z3, Z4             \
	VMULPD      Z4, Z4, Z5             \
	VMULPD.BCST 256(AX), Z3, Z6        \
	VADDPD.BCST 224(AX), Z6, Z6        \
	VMULPD      Z6, Z4, Z6             \
	VADDPD.BCST 192(AX), Z3, Z7        \
	VADDPD      Z6, Z7, Z6             \
	VMULPD.BCST 384(AX), Z3, Z7        \
	VADDPD.BCST 352(AX), Z7, Z7        \
	VMULPD      Z7, Z4, Z7             \
	VMULPD.BCST 320(AX), Z3, Z0        \
	VADDPD.BCST 288(AX), Z0, Z0        \
	VADDPD      Z7, Z0, Z7             \
	VMULPD.BCST 512(AX), Z3, Z0        \
	VADDPD.BCST 480(AX), Z0, Z0        \
	VMULPD      Z0, Z4, Z0             \
	VMULPD.BCST 448(AX), Z3, Z2        \
	VADDPD.BCST 416(AX), Z2, Z2        \
	VADDPD      Z0, Z2, Z0             \
	VMULPD.BCST 544(AX), Z5, Z2        \
	VADDPD      Z2, Z0, Z0             \
	VMULPD      Z0, Z5, Z0             \
	VADDPD      Z0, Z7, Z0             \
	VMULPD      Z0, Z5, Z0             \
	VADDPD      Z0, Z6, Z0             \
	VPSUBQ      Z9, Z1, Z1             \
	VPSLLQ      $52, Z1, Z1            \
	VMULPD      Z1, Z0, Z0             \
	VMOVAPD.Z   Z0, K1, Z0

// ADDPAIR adds the two float64 lanes of the XMM register x to the sum in X10, lane 0 first
// (clobbers X3): the softmax kernels' sum in the order of the values.
#define ADDPAIR(x) \
	VADDSD    x, X10, X10 \
	VPERMILPD $1, x, X3   \
	VADDSD    X3, X10, X10
