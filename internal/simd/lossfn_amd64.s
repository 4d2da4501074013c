//go:build !noasm

#include "textflag.h"
#include "expneg_amd64.h"

// The loss functions' vector code (lossfn.go): four float32 entries at a time, widened to
// float64 lanes, with the plain-Go operations in their order (no fused multiply-add), narrowed
// back on store. Go's assembler takes the operands in reverse: VSUBPD b, a, d is d = a − b,
// VCMPPD $p, b, a, d compares a with b, VBLENDVPD m, b, a, d is d = m ? b : a, and VANDNPD b,
// a, d is d = ^a & b.

// EXPNEGMEM is EXPNEG with every constant read from ·expNegConst at AX.
#define EXPNEGMEM EXPNEG((AX), 32(AX), 64(AX), 96(AX), 160(AX))

// lossConst: each value in 4 lanes (32 bytes): the sign bit, all bits but the sign, 1, 2, −2,
// −tan 1, 0.66, tan(3π/8), π/2, π/4, morebits, morebits/2, then atan's P0..P4 and Q0..Q4
// (offsets: 0, 32, …; P0 at 384, Q0 at 544).
DATA lossConst<>+0(SB)/8, $0x8000000000000000
DATA lossConst<>+8(SB)/8, $0x8000000000000000
DATA lossConst<>+16(SB)/8, $0x8000000000000000
DATA lossConst<>+24(SB)/8, $0x8000000000000000
DATA lossConst<>+32(SB)/8, $0x7fffffffffffffff
DATA lossConst<>+40(SB)/8, $0x7fffffffffffffff
DATA lossConst<>+48(SB)/8, $0x7fffffffffffffff
DATA lossConst<>+56(SB)/8, $0x7fffffffffffffff
DATA lossConst<>+64(SB)/8, $0x3ff0000000000000
DATA lossConst<>+72(SB)/8, $0x3ff0000000000000
DATA lossConst<>+80(SB)/8, $0x3ff0000000000000
DATA lossConst<>+88(SB)/8, $0x3ff0000000000000
DATA lossConst<>+96(SB)/8, $0x4000000000000000
DATA lossConst<>+104(SB)/8, $0x4000000000000000
DATA lossConst<>+112(SB)/8, $0x4000000000000000
DATA lossConst<>+120(SB)/8, $0x4000000000000000
DATA lossConst<>+128(SB)/8, $0xc000000000000000
DATA lossConst<>+136(SB)/8, $0xc000000000000000
DATA lossConst<>+144(SB)/8, $0xc000000000000000
DATA lossConst<>+152(SB)/8, $0xc000000000000000
DATA lossConst<>+160(SB)/8, $0xbff8eb245cbee3a5
DATA lossConst<>+168(SB)/8, $0xbff8eb245cbee3a5
DATA lossConst<>+176(SB)/8, $0xbff8eb245cbee3a5
DATA lossConst<>+184(SB)/8, $0xbff8eb245cbee3a5
DATA lossConst<>+192(SB)/8, $0x3fe51eb851eb851f
DATA lossConst<>+200(SB)/8, $0x3fe51eb851eb851f
DATA lossConst<>+208(SB)/8, $0x3fe51eb851eb851f
DATA lossConst<>+216(SB)/8, $0x3fe51eb851eb851f
DATA lossConst<>+224(SB)/8, $0x4003504f333f9de6
DATA lossConst<>+232(SB)/8, $0x4003504f333f9de6
DATA lossConst<>+240(SB)/8, $0x4003504f333f9de6
DATA lossConst<>+248(SB)/8, $0x4003504f333f9de6
DATA lossConst<>+256(SB)/8, $0x3ff921fb54442d18
DATA lossConst<>+264(SB)/8, $0x3ff921fb54442d18
DATA lossConst<>+272(SB)/8, $0x3ff921fb54442d18
DATA lossConst<>+280(SB)/8, $0x3ff921fb54442d18
DATA lossConst<>+288(SB)/8, $0x3fe921fb54442d18
DATA lossConst<>+296(SB)/8, $0x3fe921fb54442d18
DATA lossConst<>+304(SB)/8, $0x3fe921fb54442d18
DATA lossConst<>+312(SB)/8, $0x3fe921fb54442d18
DATA lossConst<>+320(SB)/8, $0x3c91a62633145c07
DATA lossConst<>+328(SB)/8, $0x3c91a62633145c07
DATA lossConst<>+336(SB)/8, $0x3c91a62633145c07
DATA lossConst<>+344(SB)/8, $0x3c91a62633145c07
DATA lossConst<>+352(SB)/8, $0x3c81a62633145c07
DATA lossConst<>+360(SB)/8, $0x3c81a62633145c07
DATA lossConst<>+368(SB)/8, $0x3c81a62633145c07
DATA lossConst<>+376(SB)/8, $0x3c81a62633145c07
DATA lossConst<>+384(SB)/8, $0xbfec007fa1f72594
DATA lossConst<>+392(SB)/8, $0xbfec007fa1f72594
DATA lossConst<>+400(SB)/8, $0xbfec007fa1f72594
DATA lossConst<>+408(SB)/8, $0xbfec007fa1f72594
DATA lossConst<>+416(SB)/8, $0xc03028545b6b807a
DATA lossConst<>+424(SB)/8, $0xc03028545b6b807a
DATA lossConst<>+432(SB)/8, $0xc03028545b6b807a
DATA lossConst<>+440(SB)/8, $0xc03028545b6b807a
DATA lossConst<>+448(SB)/8, $0xc052c08c36880273
DATA lossConst<>+456(SB)/8, $0xc052c08c36880273
DATA lossConst<>+464(SB)/8, $0xc052c08c36880273
DATA lossConst<>+472(SB)/8, $0xc052c08c36880273
DATA lossConst<>+480(SB)/8, $0xc05eb8bf2d05ba25
DATA lossConst<>+488(SB)/8, $0xc05eb8bf2d05ba25
DATA lossConst<>+496(SB)/8, $0xc05eb8bf2d05ba25
DATA lossConst<>+504(SB)/8, $0xc05eb8bf2d05ba25
DATA lossConst<>+512(SB)/8, $0xc0503669fd28ec8e
DATA lossConst<>+520(SB)/8, $0xc0503669fd28ec8e
DATA lossConst<>+528(SB)/8, $0xc0503669fd28ec8e
DATA lossConst<>+536(SB)/8, $0xc0503669fd28ec8e
DATA lossConst<>+544(SB)/8, $0x4038dbc45b14603c
DATA lossConst<>+552(SB)/8, $0x4038dbc45b14603c
DATA lossConst<>+560(SB)/8, $0x4038dbc45b14603c
DATA lossConst<>+568(SB)/8, $0x4038dbc45b14603c
DATA lossConst<>+576(SB)/8, $0x4064a0dd43b8fa25
DATA lossConst<>+584(SB)/8, $0x4064a0dd43b8fa25
DATA lossConst<>+592(SB)/8, $0x4064a0dd43b8fa25
DATA lossConst<>+600(SB)/8, $0x4064a0dd43b8fa25
DATA lossConst<>+608(SB)/8, $0x407b0e18d2e2be3b
DATA lossConst<>+616(SB)/8, $0x407b0e18d2e2be3b
DATA lossConst<>+624(SB)/8, $0x407b0e18d2e2be3b
DATA lossConst<>+632(SB)/8, $0x407b0e18d2e2be3b
DATA lossConst<>+640(SB)/8, $0x407e563f13b049ea
DATA lossConst<>+648(SB)/8, $0x407e563f13b049ea
DATA lossConst<>+656(SB)/8, $0x407e563f13b049ea
DATA lossConst<>+664(SB)/8, $0x407e563f13b049ea
DATA lossConst<>+672(SB)/8, $0x4068519efbbd62ec
DATA lossConst<>+680(SB)/8, $0x4068519efbbd62ec
DATA lossConst<>+688(SB)/8, $0x4068519efbbd62ec
DATA lossConst<>+696(SB)/8, $0x4068519efbbd62ec
GLOBL lossConst<>(SB), RODATA|NOPTR, $704

// lossConst32: each float32 value in 8 lanes (32 bytes), in the order of their comments: the
// constants of surrogate32 (expNeg32's and atan32's, surrogate32.go).
// the sign bit
DATA lossConst32<>+0(SB)/4, $0x80000000
DATA lossConst32<>+4(SB)/4, $0x80000000
DATA lossConst32<>+8(SB)/4, $0x80000000
DATA lossConst32<>+12(SB)/4, $0x80000000
DATA lossConst32<>+16(SB)/4, $0x80000000
DATA lossConst32<>+20(SB)/4, $0x80000000
DATA lossConst32<>+24(SB)/4, $0x80000000
DATA lossConst32<>+28(SB)/4, $0x80000000
// all bits but the sign
DATA lossConst32<>+32(SB)/4, $0x7fffffff
DATA lossConst32<>+36(SB)/4, $0x7fffffff
DATA lossConst32<>+40(SB)/4, $0x7fffffff
DATA lossConst32<>+44(SB)/4, $0x7fffffff
DATA lossConst32<>+48(SB)/4, $0x7fffffff
DATA lossConst32<>+52(SB)/4, $0x7fffffff
DATA lossConst32<>+56(SB)/4, $0x7fffffff
DATA lossConst32<>+60(SB)/4, $0x7fffffff
// 1
DATA lossConst32<>+64(SB)/4, $0x3f800000
DATA lossConst32<>+68(SB)/4, $0x3f800000
DATA lossConst32<>+72(SB)/4, $0x3f800000
DATA lossConst32<>+76(SB)/4, $0x3f800000
DATA lossConst32<>+80(SB)/4, $0x3f800000
DATA lossConst32<>+84(SB)/4, $0x3f800000
DATA lossConst32<>+88(SB)/4, $0x3f800000
DATA lossConst32<>+92(SB)/4, $0x3f800000
// 2
DATA lossConst32<>+96(SB)/4, $0x40000000
DATA lossConst32<>+100(SB)/4, $0x40000000
DATA lossConst32<>+104(SB)/4, $0x40000000
DATA lossConst32<>+108(SB)/4, $0x40000000
DATA lossConst32<>+112(SB)/4, $0x40000000
DATA lossConst32<>+116(SB)/4, $0x40000000
DATA lossConst32<>+120(SB)/4, $0x40000000
DATA lossConst32<>+124(SB)/4, $0x40000000
// -2
DATA lossConst32<>+128(SB)/4, $0xc0000000
DATA lossConst32<>+132(SB)/4, $0xc0000000
DATA lossConst32<>+136(SB)/4, $0xc0000000
DATA lossConst32<>+140(SB)/4, $0xc0000000
DATA lossConst32<>+144(SB)/4, $0xc0000000
DATA lossConst32<>+148(SB)/4, $0xc0000000
DATA lossConst32<>+152(SB)/4, $0xc0000000
DATA lossConst32<>+156(SB)/4, $0xc0000000
// log2e
DATA lossConst32<>+160(SB)/4, $0x3fb8aa3b
DATA lossConst32<>+164(SB)/4, $0x3fb8aa3b
DATA lossConst32<>+168(SB)/4, $0x3fb8aa3b
DATA lossConst32<>+172(SB)/4, $0x3fb8aa3b
DATA lossConst32<>+176(SB)/4, $0x3fb8aa3b
DATA lossConst32<>+180(SB)/4, $0x3fb8aa3b
DATA lossConst32<>+184(SB)/4, $0x3fb8aa3b
DATA lossConst32<>+188(SB)/4, $0x3fb8aa3b
// 1.5·2^23
DATA lossConst32<>+192(SB)/4, $0x4b400000
DATA lossConst32<>+196(SB)/4, $0x4b400000
DATA lossConst32<>+200(SB)/4, $0x4b400000
DATA lossConst32<>+204(SB)/4, $0x4b400000
DATA lossConst32<>+208(SB)/4, $0x4b400000
DATA lossConst32<>+212(SB)/4, $0x4b400000
DATA lossConst32<>+216(SB)/4, $0x4b400000
DATA lossConst32<>+220(SB)/4, $0x4b400000
// ln2Hi
DATA lossConst32<>+224(SB)/4, $0x3f318000
DATA lossConst32<>+228(SB)/4, $0x3f318000
DATA lossConst32<>+232(SB)/4, $0x3f318000
DATA lossConst32<>+236(SB)/4, $0x3f318000
DATA lossConst32<>+240(SB)/4, $0x3f318000
DATA lossConst32<>+244(SB)/4, $0x3f318000
DATA lossConst32<>+248(SB)/4, $0x3f318000
DATA lossConst32<>+252(SB)/4, $0x3f318000
// ln2Lo
DATA lossConst32<>+256(SB)/4, $0xb95e8083
DATA lossConst32<>+260(SB)/4, $0xb95e8083
DATA lossConst32<>+264(SB)/4, $0xb95e8083
DATA lossConst32<>+268(SB)/4, $0xb95e8083
DATA lossConst32<>+272(SB)/4, $0xb95e8083
DATA lossConst32<>+276(SB)/4, $0xb95e8083
DATA lossConst32<>+280(SB)/4, $0xb95e8083
DATA lossConst32<>+284(SB)/4, $0xb95e8083
// P0
DATA lossConst32<>+288(SB)/4, $0x39506967
DATA lossConst32<>+292(SB)/4, $0x39506967
DATA lossConst32<>+296(SB)/4, $0x39506967
DATA lossConst32<>+300(SB)/4, $0x39506967
DATA lossConst32<>+304(SB)/4, $0x39506967
DATA lossConst32<>+308(SB)/4, $0x39506967
DATA lossConst32<>+312(SB)/4, $0x39506967
DATA lossConst32<>+316(SB)/4, $0x39506967
// P1
DATA lossConst32<>+320(SB)/4, $0x3ab743ce
DATA lossConst32<>+324(SB)/4, $0x3ab743ce
DATA lossConst32<>+328(SB)/4, $0x3ab743ce
DATA lossConst32<>+332(SB)/4, $0x3ab743ce
DATA lossConst32<>+336(SB)/4, $0x3ab743ce
DATA lossConst32<>+340(SB)/4, $0x3ab743ce
DATA lossConst32<>+344(SB)/4, $0x3ab743ce
DATA lossConst32<>+348(SB)/4, $0x3ab743ce
// P2
DATA lossConst32<>+352(SB)/4, $0x3c088908
DATA lossConst32<>+356(SB)/4, $0x3c088908
DATA lossConst32<>+360(SB)/4, $0x3c088908
DATA lossConst32<>+364(SB)/4, $0x3c088908
DATA lossConst32<>+368(SB)/4, $0x3c088908
DATA lossConst32<>+372(SB)/4, $0x3c088908
DATA lossConst32<>+376(SB)/4, $0x3c088908
DATA lossConst32<>+380(SB)/4, $0x3c088908
// P3
DATA lossConst32<>+384(SB)/4, $0x3d2aa9c1
DATA lossConst32<>+388(SB)/4, $0x3d2aa9c1
DATA lossConst32<>+392(SB)/4, $0x3d2aa9c1
DATA lossConst32<>+396(SB)/4, $0x3d2aa9c1
DATA lossConst32<>+400(SB)/4, $0x3d2aa9c1
DATA lossConst32<>+404(SB)/4, $0x3d2aa9c1
DATA lossConst32<>+408(SB)/4, $0x3d2aa9c1
DATA lossConst32<>+412(SB)/4, $0x3d2aa9c1
// P4
DATA lossConst32<>+416(SB)/4, $0x3e2aaaaa
DATA lossConst32<>+420(SB)/4, $0x3e2aaaaa
DATA lossConst32<>+424(SB)/4, $0x3e2aaaaa
DATA lossConst32<>+428(SB)/4, $0x3e2aaaaa
DATA lossConst32<>+432(SB)/4, $0x3e2aaaaa
DATA lossConst32<>+436(SB)/4, $0x3e2aaaaa
DATA lossConst32<>+440(SB)/4, $0x3e2aaaaa
DATA lossConst32<>+444(SB)/4, $0x3e2aaaaa
// P5
DATA lossConst32<>+448(SB)/4, $0x3f000000
DATA lossConst32<>+452(SB)/4, $0x3f000000
DATA lossConst32<>+456(SB)/4, $0x3f000000
DATA lossConst32<>+460(SB)/4, $0x3f000000
DATA lossConst32<>+464(SB)/4, $0x3f000000
DATA lossConst32<>+468(SB)/4, $0x3f000000
DATA lossConst32<>+472(SB)/4, $0x3f000000
DATA lossConst32<>+476(SB)/4, $0x3f000000
// -87.33654
DATA lossConst32<>+480(SB)/4, $0xc2aeac4f
DATA lossConst32<>+484(SB)/4, $0xc2aeac4f
DATA lossConst32<>+488(SB)/4, $0xc2aeac4f
DATA lossConst32<>+492(SB)/4, $0xc2aeac4f
DATA lossConst32<>+496(SB)/4, $0xc2aeac4f
DATA lossConst32<>+500(SB)/4, $0xc2aeac4f
DATA lossConst32<>+504(SB)/4, $0xc2aeac4f
DATA lossConst32<>+508(SB)/4, $0xc2aeac4f
// bits(1.5·2^23) − 127, an int32
DATA lossConst32<>+512(SB)/4, $0x4b3fff81
DATA lossConst32<>+516(SB)/4, $0x4b3fff81
DATA lossConst32<>+520(SB)/4, $0x4b3fff81
DATA lossConst32<>+524(SB)/4, $0x4b3fff81
DATA lossConst32<>+528(SB)/4, $0x4b3fff81
DATA lossConst32<>+532(SB)/4, $0x4b3fff81
DATA lossConst32<>+536(SB)/4, $0x4b3fff81
DATA lossConst32<>+540(SB)/4, $0x4b3fff81
// A0
DATA lossConst32<>+544(SB)/4, $0x3da4f0d1
DATA lossConst32<>+548(SB)/4, $0x3da4f0d1
DATA lossConst32<>+552(SB)/4, $0x3da4f0d1
DATA lossConst32<>+556(SB)/4, $0x3da4f0d1
DATA lossConst32<>+560(SB)/4, $0x3da4f0d1
DATA lossConst32<>+564(SB)/4, $0x3da4f0d1
DATA lossConst32<>+568(SB)/4, $0x3da4f0d1
DATA lossConst32<>+572(SB)/4, $0x3da4f0d1
// A1
DATA lossConst32<>+576(SB)/4, $0xbe0e1b85
DATA lossConst32<>+580(SB)/4, $0xbe0e1b85
DATA lossConst32<>+584(SB)/4, $0xbe0e1b85
DATA lossConst32<>+588(SB)/4, $0xbe0e1b85
DATA lossConst32<>+592(SB)/4, $0xbe0e1b85
DATA lossConst32<>+596(SB)/4, $0xbe0e1b85
DATA lossConst32<>+600(SB)/4, $0xbe0e1b85
DATA lossConst32<>+604(SB)/4, $0xbe0e1b85
// A2
DATA lossConst32<>+608(SB)/4, $0x3e4c925f
DATA lossConst32<>+612(SB)/4, $0x3e4c925f
DATA lossConst32<>+616(SB)/4, $0x3e4c925f
DATA lossConst32<>+620(SB)/4, $0x3e4c925f
DATA lossConst32<>+624(SB)/4, $0x3e4c925f
DATA lossConst32<>+628(SB)/4, $0x3e4c925f
DATA lossConst32<>+632(SB)/4, $0x3e4c925f
DATA lossConst32<>+636(SB)/4, $0x3e4c925f
// A3
DATA lossConst32<>+640(SB)/4, $0xbeaaaa2a
DATA lossConst32<>+644(SB)/4, $0xbeaaaa2a
DATA lossConst32<>+648(SB)/4, $0xbeaaaa2a
DATA lossConst32<>+652(SB)/4, $0xbeaaaa2a
DATA lossConst32<>+656(SB)/4, $0xbeaaaa2a
DATA lossConst32<>+660(SB)/4, $0xbeaaaa2a
DATA lossConst32<>+664(SB)/4, $0xbeaaaa2a
DATA lossConst32<>+668(SB)/4, $0xbeaaaa2a
// tan(3π/8)
DATA lossConst32<>+672(SB)/4, $0x401a827a
DATA lossConst32<>+676(SB)/4, $0x401a827a
DATA lossConst32<>+680(SB)/4, $0x401a827a
DATA lossConst32<>+684(SB)/4, $0x401a827a
DATA lossConst32<>+688(SB)/4, $0x401a827a
DATA lossConst32<>+692(SB)/4, $0x401a827a
DATA lossConst32<>+696(SB)/4, $0x401a827a
DATA lossConst32<>+700(SB)/4, $0x401a827a
// tan(π/8)
DATA lossConst32<>+704(SB)/4, $0x3ed413cd
DATA lossConst32<>+708(SB)/4, $0x3ed413cd
DATA lossConst32<>+712(SB)/4, $0x3ed413cd
DATA lossConst32<>+716(SB)/4, $0x3ed413cd
DATA lossConst32<>+720(SB)/4, $0x3ed413cd
DATA lossConst32<>+724(SB)/4, $0x3ed413cd
DATA lossConst32<>+728(SB)/4, $0x3ed413cd
DATA lossConst32<>+732(SB)/4, $0x3ed413cd
// π/2
DATA lossConst32<>+736(SB)/4, $0x3fc90fdb
DATA lossConst32<>+740(SB)/4, $0x3fc90fdb
DATA lossConst32<>+744(SB)/4, $0x3fc90fdb
DATA lossConst32<>+748(SB)/4, $0x3fc90fdb
DATA lossConst32<>+752(SB)/4, $0x3fc90fdb
DATA lossConst32<>+756(SB)/4, $0x3fc90fdb
DATA lossConst32<>+760(SB)/4, $0x3fc90fdb
DATA lossConst32<>+764(SB)/4, $0x3fc90fdb
// π/4
DATA lossConst32<>+768(SB)/4, $0x3f490fdb
DATA lossConst32<>+772(SB)/4, $0x3f490fdb
DATA lossConst32<>+776(SB)/4, $0x3f490fdb
DATA lossConst32<>+780(SB)/4, $0x3f490fdb
DATA lossConst32<>+784(SB)/4, $0x3f490fdb
DATA lossConst32<>+788(SB)/4, $0x3f490fdb
DATA lossConst32<>+792(SB)/4, $0x3f490fdb
DATA lossConst32<>+796(SB)/4, $0x3f490fdb
// the kink −tan 1
DATA lossConst32<>+800(SB)/4, $0xbfc75923
DATA lossConst32<>+804(SB)/4, $0xbfc75923
DATA lossConst32<>+808(SB)/4, $0xbfc75923
DATA lossConst32<>+812(SB)/4, $0xbfc75923
DATA lossConst32<>+816(SB)/4, $0xbfc75923
DATA lossConst32<>+820(SB)/4, $0xbfc75923
DATA lossConst32<>+824(SB)/4, $0xbfc75923
DATA lossConst32<>+828(SB)/4, $0xbfc75923
GLOBL lossConst32<>(SB), RODATA|NOPTR, $832

// EXPNEG32 sets the eight lanes of Y0 (t ≤ 0) to expNeg32 of theirs, with its operations in its
// order (no fused multiply-add), so that each lane gives its bits: k = t·log2e + 1.5·2^23, n = k
// − 1.5·2^23, r = (t − n·ln2Hi) − n·ln2Lo, p = Horner's P0..P5 in r, (p·r² + r) + 1, times 2^n
// built from k's bits; 0 below −87.33654. R8 points to lossConst32. Clobbers Y1..Y6.
#define EXPNEG32 \
	VCMPPS  $0x11, 480(R8), Y0, Y6 \
	VMULPS  160(R8), Y0, Y1        \
	VADDPS  192(R8), Y1, Y1        \
	VSUBPS  192(R8), Y1, Y2        \
	VMULPS  224(R8), Y2, Y3        \
	VSUBPS  Y3, Y0, Y3             \
	VMULPS  256(R8), Y2, Y2        \
	VSUBPS  Y2, Y3, Y3             \
	VMULPS  Y3, Y3, Y4             \
	VMULPS  288(R8), Y3, Y5        \
	VADDPS  320(R8), Y5, Y5        \
	VMULPS  Y3, Y5, Y5             \
	VADDPS  352(R8), Y5, Y5        \
	VMULPS  Y3, Y5, Y5             \
	VADDPS  384(R8), Y5, Y5        \
	VMULPS  Y3, Y5, Y5             \
	VADDPS  416(R8), Y5, Y5        \
	VMULPS  Y3, Y5, Y5             \
	VADDPS  448(R8), Y5, Y5        \
	VMULPS  Y4, Y5, Y5             \
	VADDPS  Y3, Y5, Y5             \
	VADDPS  64(R8), Y5, Y5         \
	VPSUBD  512(R8), Y1, Y1        \
	VPSLLD  $23, Y1, Y1            \
	VMULPS  Y1, Y5, Y0             \
	VANDNPS Y0, Y6, Y0

// func surrogates8(f int, y, dy, x *float32, n int, a float32)
//
// One loop per surrogate (f = Tanh1, Atan1, ReLU1), eight float32 lanes at a time with
// surrogate32's operations in its order. Y15 holds a, Y13 1, Y12 0, Y11 2; R8 points to
// lossConst32.
TEXT ·surrogates8(SB), NOSPLIT, $0-44
	MOVQ         f+0(FP), BX
	MOVQ         y+8(FP), DI
	MOVQ         dy+16(FP), DX
	MOVQ         x+24(FP), SI
	MOVQ         n+32(FP), CX
	VBROADCASTSS a+40(FP), Y15
	LEAQ         lossConst32<>(SB), R8
	VMOVUPS      64(R8), Y13
	VXORPS       Y12, Y12, Y12
	VMOVUPS      96(R8), Y11
	SHRQ         $3, CX
	JZ           sur_done
	CMPQ         BX, $1
	JEQ          atan_loop
	JGT          relu_loop

tanh_loop:
	VMOVUPS    (SI), Y10
	VANDPS     32(R8), Y10, Y0          // |x|
	VMULPS     128(R8), Y0, Y0          // −2|x|
	EXPNEG32                            // e = e^{−2|x|}
	VADDPS     Y13, Y0, Y1              // 1 + e
	VDIVPS     Y1, Y11, Y1              // q = 2/(1 + e)
	VMULPS     Y0, Y1, Y2               // q·e
	VMULPS     Y2, Y1, Y3               // f' = q·(q·e)
	VCMPPS     $0x11, Y12, Y10, Y4      // x < 0
	VBLENDVPS  Y4, Y2, Y1, Y5           // f = x < 0 ? q·e : q
	VMULPS     Y15, Y5, Y5              // a·f
	VMOVUPS    Y5, (DI)
	VMOVUPS    Y3, (DX)
	ADDQ       $32, SI
	ADDQ       $32, DI
	ADDQ       $32, DX
	DECQ       CX
	JNZ        tanh_loop
	JMP        sur_done

atan_loop:
	VMOVUPS    (SI), Y10
	VANDPS     32(R8), Y10, Y9          // t = |x|
	VCMPPS     $0x1e, 672(R8), Y9, Y8   // big: t > tan(3π/8)
	VCMPPS     $0x1e, 704(R8), Y9, Y7   // mid: t > tan(π/8)
	VSUBPS     Y13, Y9, Y1              // t − 1
	VADDPS     Y13, Y9, Y2              // t + 1
	VBLENDVPS  Y7, Y1, Y9, Y1           // numerator: mid ? t − 1 : t
	VBLENDVPS  Y7, Y2, Y13, Y2          // denominator: mid ? t + 1 : 1
	VSUBPS     Y13, Y12, Y0             // −1
	VBLENDVPS  Y8, Y0, Y1, Y1           // big: −1
	VBLENDVPS  Y8, Y9, Y2, Y2           // big: t
	VDIVPS     Y2, Y1, Y1               // r: t, (t − 1)/(t + 1) or −1/t
	VBLENDVPS  Y7, 768(R8), Y12, Y3     // y0: π/4 (mid) or 0
	VBLENDVPS  Y8, 736(R8), Y3, Y3      // π/2 (big)
	VMULPS     Y1, Y1, Y4               // z = r²
	VMULPS     544(R8), Y4, Y5          // A0·z
	VADDPS     576(R8), Y5, Y5
	VMULPS     Y4, Y5, Y5
	VADDPS     608(R8), Y5, Y5
	VMULPS     Y4, Y5, Y5
	VADDPS     640(R8), Y5, Y5          // p
	VMULPS     Y4, Y5, Y5               // p·z
	VMULPS     Y1, Y5, Y5               // ·r
	VADDPS     Y1, Y5, Y5               // + r
	VADDPS     Y3, Y5, Y5               // y0 + …: arctan t
	VANDPS     (R8), Y10, Y6
	VXORPS     Y6, Y5, Y5               // arctan x, x's sign
	VADDPS     Y13, Y5, Y5              // 1 + arctan x
	VMULPS     Y15, Y5, Y5              // a·(1 + arctan x)
	VMULPS     Y10, Y10, Y6             // x²
	VADDPS     Y13, Y6, Y6              // 1 + x²
	VDIVPS     Y6, Y13, Y6              // 1/(1 + x²)
	VCMPPS     $0x12, 800(R8), Y10, Y7  // x ≤ the kink
	VANDNPS    Y5, Y7, Y5
	VANDNPS    Y6, Y7, Y6
	VMOVUPS    Y5, (DI)
	VMOVUPS    Y6, (DX)
	ADDQ       $32, SI
	ADDQ       $32, DI
	ADDQ       $32, DX
	DECQ       CX
	JNZ        atan_loop
	JMP        sur_done

relu_loop:
	VMOVUPS    (SI), Y0
	VADDPS     Y13, Y0, Y0              // v = x + 1
	VCMPPS     $0x12, Y12, Y0, Y1       // v ≤ 0
	VMULPS     Y15, Y0, Y2              // a·v
	VANDNPS    Y2, Y1, Y2
	VANDNPS    Y13, Y1, Y3              // 1, or 0 where v ≤ 0
	VMOVUPS    Y2, (DI)
	VMOVUPS    Y3, (DX)
	ADDQ       $32, SI
	ADDQ       $32, DI
	ADDQ       $32, DX
	DECQ       CX
	JNZ        relu_loop

sur_done:
	VZEROUPPER
	RET

// func softplus8(sig, z, w *float32, n int, acc *[16]float64) (bad bool)
//
// Eight float32 lanes with softplusStep32's operations in its order: Y11 and Y12 hold the lanes'
// sums S of max(z, 0)·w (lanes 0..3 and 4..7, widened), Y14 and Y15 their products less one P,
// Y13 the lanes whose mask was neither 0 nor 1; Y10 z, Y9 w, Y8 0. R8 points to lossConst32.
TEXT ·softplus8(SB), NOSPLIT, $0-41
	MOVQ   sig+0(FP), DI
	MOVQ   z+8(FP), SI
	MOVQ   w+16(FP), DX
	MOVQ   n+24(FP), CX
	LEAQ   lossConst32<>(SB), R8
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	SHRQ   $3, CX
	JZ     softplus_done

softplus_loop:
	VMOVUPS      (SI), Y10
	VMOVUPS      (DX), Y9
	VXORPS       Y8, Y8, Y8
	VCMPPS       $0x04, Y8, Y9, Y1     // w ≠ 0 (or NaN)
	VCMPPS       $0x04, 64(R8), Y9, Y2 // w ≠ 1 (or NaN)
	VANDPS       Y1, Y2, Y1
	VORPS        Y1, Y13, Y13
	VORPS        (R8), Y10, Y0         // −|z|
	EXPNEG32                           // e^{−|z|}
	VMULPS       Y9, Y0, Y0            // a = e·w
	VXORPS       Y8, Y8, Y8
	VMAXPS       Y8, Y10, Y3           // z > 0 ? z : 0
	VMULPS       Y9, Y3, Y3            // ·w
	VCVTPS2PD    X3, Y4
	VADDPD       Y4, Y11, Y11          // S += (lanes 0..3)
	VEXTRACTF128 $1, Y3, X5
	VCVTPS2PD    X5, Y5
	VADDPD       Y5, Y12, Y12          // (lanes 4..7)
	VCVTPS2PD    X0, Y6                // a, widened
	VMULPD       Y6, Y14, Y7
	VADDPD       Y7, Y6, Y7
	VADDPD       Y7, Y14, Y14          // P += a + P·a (lanes 0..3)
	VEXTRACTF128 $1, Y0, X5
	VCVTPS2PD    X5, Y6
	VMULPD       Y6, Y15, Y7
	VADDPD       Y7, Y6, Y7
	VADDPD       Y7, Y15, Y15          // (lanes 4..7)
	VCMPPS       $0x1d, Y8, Y10, Y1    // z ≥ 0
	VBLENDVPS    Y1, Y9, Y0, Y2        // z ≥ 0 ? w : a
	VADDPS       64(R8), Y0, Y3        // 1 + a
	VDIVPS       Y3, Y2, Y2
	VMOVUPS      Y2, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DX
	ADDQ         $32, DI
	DECQ         CX
	JNZ          softplus_loop

softplus_done:
	MOVQ      acc+32(FP), BX
	VMOVUPD   Y11, (BX)
	VMOVUPD   Y12, 32(BX)
	VMOVUPD   Y14, 64(BX)
	VMOVUPD   Y15, 96(BX)
	VPTEST    Y13, Y13
	SETNE     bad+40(FP)
	VZEROUPPER
	RET

// POWBITS(r, p, label, skip, done) multiplies p by r^(2^k) for the bits k of the exponent in BX,
// from the lowest, squaring r in place (R9 counts the bits down; label, skip and done are the
// loop's labels).
#define POWBITS(r, p, label, skip, done) \
	MOVQ   BX, R9   \
	TESTQ  R9, R9   \
	JZ     done     \
label:              \
	TESTQ  $1, R9   \
	JZ     skip     \
	VMULPD r, p, p  \
skip:               \
	VMULPD r, r, r  \
	SHRQ   $1, R9   \
	JNZ    label    \
done:

// POWLANES(off, x, m, p) finishes four entries at byte offset off (x and m widened, p their
// powers): p, or 0 where x = 0 or m = 0, stored narrowed to q, and p·x·c added to the lanes'
// sums Y14.
#define POWLANES(off, x, m, p) \
	VCMPPD     $0x00, Y12, x, Y4 \
	VCMPPD     $0x00, Y12, m, Y5 \
	VORPD      Y5, Y4, Y4        \
	VANDNPD    p, Y4, p          \
	VCVTPD2PSY p, X6             \
	VMOVUPS    X6, off(DI)       \
	VMULPD     x, p, Y7          \
	VMULPD     Y15, Y7, Y7       \
	VADDPD     Y7, Y14, Y14

// func powRow4(q, x, m *float32, n int, c float64, e int, acc *[4]float64)
//
// Y15 holds c, Y14 the lanes' sums, Y13 1, Y12 0. Eight entries at a time, the two groups of
// four in their own registers (x, m, the powers r^(2^k) and their product: Y0, Y1, Y2, Y3 and
// Y8, Y9, Y10, Y11) so that their chains of products overlap, then a last four.
TEXT ·powRow4(SB), NOSPLIT, $0-56
	MOVQ         q+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         m+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSD c+32(FP), Y15
	MOVQ         e+40(FP), BX
	LEAQ         lossConst<>(SB), R8
	VMOVUPD      64(R8), Y13
	VXORPD       Y14, Y14, Y14
	VXORPD       Y12, Y12, Y12
	SHRQ         $2, CX
	JZ           pow_done

pow_loop8:
	CMPQ      CX, $2
	JLT       pow_four
	VCVTPS2PD (SI), Y0
	VCVTPS2PD (DX), Y1
	VCVTPS2PD 16(SI), Y8
	VCVTPS2PD 16(DX), Y9
	VMULPD    Y15, Y0, Y2
	VMULPD    Y1, Y2, Y2               // r = x·c·m
	VMULPD    Y15, Y8, Y10
	VMULPD    Y9, Y10, Y10
	VMOVAPD   Y13, Y3                  // p = 1
	VMOVAPD   Y13, Y11
	MOVQ      BX, R9
	TESTQ     R9, R9
	JZ        pow_lanes8

pow_bits8:
	TESTQ  $1, R9
	JZ     pow_square8
	VMULPD Y2, Y3, Y3                  // p *= r^(2^k)
	VMULPD Y10, Y11, Y11
pow_square8:
	VMULPD Y2, Y2, Y2
	VMULPD Y10, Y10, Y10
	SHRQ   $1, R9
	JNZ    pow_bits8

pow_lanes8:
	POWLANES(0, Y0, Y1, Y3)
	POWLANES(16, Y8, Y9, Y11)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $2, CX
	JMP  pow_loop8

pow_four:
	TESTQ     CX, CX
	JZ        pow_done
	VCVTPS2PD (SI), Y0
	VCVTPS2PD (DX), Y1
	VMULPD    Y15, Y0, Y2
	VMULPD    Y1, Y2, Y2
	VMOVAPD   Y13, Y3
	POWBITS(Y2, Y3, pow_bits4, pow_square4, pow_lanes4)
	POWLANES(0, Y0, Y1, Y3)

pow_done:
	MOVQ    acc+48(FP), BX
	VMOVUPD Y14, (BX)
	VZEROUPPER
	RET

// func maskedMax8(x, m *float32, n int) (top float32, ok bool)
//
// Eight float32 lanes: Y15 the running maxima of the masked x (x where m = 1, else +0), Y14 the
// lanes that saw a mask value other than 0 and 1 or a masked x not ≥ 0, Y13 1, Y12 0.
TEXT ·maskedMax8(SB), NOSPLIT, $0-29
	MOVQ         x+0(FP), SI
	MOVQ         m+8(FP), DX
	MOVQ         n+16(FP), CX
	MOVL         $0x3f800000, AX
	MOVL         AX, X13
	VBROADCASTSS X13, Y13
	VXORPS       Y12, Y12, Y12
	VXORPS       Y14, Y14, Y14
	VXORPS       Y15, Y15, Y15
	SHRQ         $3, CX
	JZ           mmax_done

mmax_loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VCMPPS  $0x00, Y13, Y1, Y2      // m = 1
	VCMPPS  $0x00, Y12, Y1, Y3      // m = 0
	VORPS   Y2, Y3, Y3
	VCMPPS  $0x1d, Y12, Y0, Y4      // x ≥ 0
	VANDNPS Y2, Y4, Y4              // m = 1 but not x ≥ 0
	VORPS   Y4, Y14, Y14
	VANDNPS Y13, Y3, Y3             // m neither 0 nor 1: 1.0's bits, else 0
	VORPS   Y3, Y14, Y14
	VANDPS  Y2, Y0, Y5              // x where m = 1, else +0
	VMAXPS  Y15, Y5, Y15
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    CX
	JNZ     mmax_loop

mmax_done:
	VEXTRACTF128 $1, Y15, X0
	VMAXPS       X15, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VMOVSS       X0, top+24(FP)
	VPTEST       Y14, Y14
	SETEQ        ok+28(FP)
	VZEROUPPER
	RET

// func sum8(x *float32, n int, acc *[8]float64)
//
// Y0 sums the entries k ≡ 0..3 mod 8 and Y1 those ≡ 4..7, each lane in order of k.
TEXT ·sum8(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVQ   acc+16(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	SHRQ   $3, CX
	JZ     sum_done

sum_loop:
	VCVTPS2PD (SI), Y2
	VCVTPS2PD 16(SI), Y3
	VADDPD    Y2, Y0, Y0
	VADDPD    Y3, Y1, Y1
	ADDQ      $32, SI
	DECQ      CX
	JNZ       sum_loop

sum_done:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET

// func affineMax4(dst *float64, x *float32, n int, a float64, off *float64, b, m float64) float64
//
// Y15 holds a, Y14 b, Y13 the lanes' maxima (VMAXPD with the running maximum second keeps it
// for a NaN or an equal value, as the loop), combined the same way at the end.
TEXT ·affineMax4(SB), NOSPLIT, $0-64
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD a+24(FP), Y15
	MOVQ         off+32(FP), DX
	VBROADCASTSD b+40(FP), Y14
	VBROADCASTSD m+48(FP), Y13
	SHRQ         $2, CX
	JZ           affine_done
	TESTQ        DX, DX
	JZ           affine_plain

affine_off:
	VCVTPS2PD (SI), Y0
	VMULPD    Y15, Y0, Y0            // x·a
	VADDPD    (DX), Y0, Y0           // + off
	VADDPD    Y14, Y0, Y0            // + b
	VMOVUPD   Y0, (DI)
	VMAXPD    Y13, Y0, Y13
	ADDQ      $16, SI
	ADDQ      $32, DX
	ADDQ      $32, DI
	DECQ      CX
	JNZ       affine_off
	JMP       affine_done

affine_plain:
	VCVTPS2PD (SI), Y0
	VMULPD    Y15, Y0, Y0            // x·a
	VADDPD    Y14, Y0, Y0            // + b
	VMOVUPD   Y0, (DI)
	VMAXPD    Y13, Y0, Y13
	ADDQ      $16, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       affine_plain

affine_done:
	VEXTRACTF128 $1, Y13, X2
	VMAXPD       X13, X2, X13
	VPERMILPD    $1, X13, X2
	VMAXSD       X13, X2, X13
	VMOVSD       X13, ret+56(FP)
	VZEROUPPER
	RET

// func scaleAddWidenMax8(dst *float64, x *float32, n int, a float32, m *float32, mx float64) float64
//
// Eight float32 lanes: y = x·a (+ m), widened to two groups of four float64 lanes, stored, and
// their maxima kept in Y13 (VMAXPD with the running maximum second keeps it for a NaN or an
// equal value, as the loop), combined the same way at the end. Y15 holds a.
TEXT ·scaleAddWidenMax8(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS a+24(FP), Y15
	MOVQ         m+32(FP), DX
	VBROADCASTSD mx+40(FP), Y13
	SHRQ         $3, CX
	JZ           sawm_done

sawm_loop:
	VMULPS       (SI), Y15, Y0       // x·a
	TESTQ        DX, DX
	JZ           sawm_widen
	VADDPS       (DX), Y0, Y0        // + m
	ADDQ         $32, DX

sawm_widen:
	VCVTPS2PD    X0, Y1
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD    X2, Y2
	VMOVUPD      Y1, (DI)
	VMOVUPD      Y2, 32(DI)
	VMAXPD       Y13, Y1, Y13
	VMAXPD       Y13, Y2, Y13
	ADDQ         $32, SI
	ADDQ         $64, DI
	DECQ         CX
	JNZ          sawm_loop

sawm_done:
	VEXTRACTF128 $1, Y13, X2
	VMAXPD       X13, X2, X13
	VPERMILPD    $1, X13, X2
	VMAXSD       X13, X2, X13
	VMOVSD       X13, ret+48(FP)
	VZEROUPPER
	RET
