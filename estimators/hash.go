package estimators

import "math/bits"

// golden is 2^64 divided by the golden ratio, the increment of splitmix64.
const golden = 0x9e3779b97f4a7c15

// mix is the splitmix64 finaliser (Steele, Lea and Flood 2014): a bijection of uint64 whose every
// output bit depends on every input bit.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// subSeed is the i-th independent 64-bit key derived from seed (the i-th splitmix64 output).
func subSeed(seed int64, i int) uint64 {
	return mix(uint64(seed) + uint64(i+1)*golden)
}

// hashes maps an item to one bucket in each of m arrays of width buckets, laid end to end:
// h_i(y) = i·width + ⌊mix(y + key_i)·width / 2^64⌋ (Lemire's multiply-shift range reduction).
// For consecutive ids y the values mix(y + key_i) are consecutive splitmix64 outputs.
type hashes struct {
	keys  []uint64
	width uint64
}

func newHashes(m, total int, seed int64) hashes {
	h := hashes{keys: make([]uint64, m), width: uint64(total / m)}
	for i := range h.keys {
		h.keys[i] = subSeed(seed, i)
	}
	return h
}

// size is the number of buckets of all arrays together, m·⌊H/m⌋.
func (h hashes) size() int { return len(h.keys) * int(h.width) }

// index is the bucket of y in array i, an index into the arrays of all m hashes.
func (h hashes) index(i int, y uint64) int {
	hi, _ := bits.Mul64(mix(y+h.keys[i]), h.width)
	return i*int(h.width) + int(hi)
}
