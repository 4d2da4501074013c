//go:build !noasm

package gemm

import (
	"fmt"
	"slices"
	"testing"
)

// TestPack: pack's panels hold exactly what its doc says, X[i0+ir+r, pc+l] at dst[ir·kb + l·w + r]
// and zeros past the last row, for both layouts of X, both panel widths and a width with no
// fixed-size copy, full and partial last panels, an offset into the rows and the terms, and a
// leading dimension wider than the matrix.
func TestPack(t *testing.T) {
	const rows, cols, ld = 41, 37, 45 // X is rows × cols; src holds it with leading dimension ld
	src := make([]float32, rows*ld)
	for i := range src {
		src[i] = float32(i + 1)
	}
	for _, strided := range []bool{false, true} {
		at := func(i, l int) float32 { // X[i, l]
			if strided {
				return src[l*ld+i]
			}
			return src[i*ld+l]
		}
		for _, w := range []int{mr, nr, 4} {
			for _, c := range []struct{ i0, n, pc, kb int }{{0, 2 * w, 0, 9}, {3, 2*w + 1, 5, 7}, {1, w - 1, 0, 1}, {0, 1, 8, 20}} {
				t.Run(fmt.Sprintf("strided=%v/w=%d/%v", strided, w, c), func(t *testing.T) {
					if !strided {
						// X = src as stored: i < rows, l < cols.
						c.kb = min(c.kb, cols-c.pc)
					}
					n := (c.n + w - 1) / w * w
					want := make([]float32, n*c.kb)
					for ir := 0; ir < n; ir += w {
						for l := range c.kb {
							for r := range w {
								if ir+r < c.n {
									want[ir*c.kb+l*w+r] = at(c.i0+ir+r, c.pc+l)
								}
							}
						}
					}
					got := make([]float32, len(want))
					for i := range got {
						got[i] = -1 // pack must write every value, the padding's zeros too
					}
					pack(got, src, ld, strided, w, c.i0, c.n, c.pc, c.kb, nil)
					if !slices.Equal(got, want) {
						t.Errorf("got  %v\nwant %v", got, want)
					}
				})
			}
		}
	}
}

// TestPackRows: with a list of rows, pack packs what it packs for those rows gathered into a
// matrix of their own: panels of consecutive rows, of scattered and repeated rows, partial last
// panels, offsets into the list and the terms.
func TestPackRows(t *testing.T) {
	const rows, cols, ld = 20, 30, 33
	src := make([]float32, rows*ld)
	for i := range src {
		src[i] = float32(i + 1)
	}
	at := []int32{5, 6, 7, 8, 9, 10, 3, 3, 1, 0, 2, 19, 7, 12, 13, 14, 15, 16, 17, 4}
	gathered := make([]float32, len(at)*ld)
	for i, r := range at {
		copy(gathered[i*ld:(i+1)*ld], src[int(r)*ld:(int(r)+1)*ld])
	}
	for _, w := range []int{mr, 4} {
		for _, c := range []struct{ i0, n, pc, kb int }{{0, 20, 0, 30}, {1, 13, 5, 9}, {6, 7, 0, 1}, {12, 6, 29, 1}} {
			t.Run(fmt.Sprintf("w=%d/%v", w, c), func(t *testing.T) {
				size := (c.n + w - 1) / w * w * c.kb
				want, got := make([]float32, size), make([]float32, size)
				for i := range got {
					got[i] = -1
				}
				pack(want, gathered, ld, false, w, c.i0, c.n, c.pc, c.kb, nil)
				pack(got, src, ld, false, w, c.i0, c.n, c.pc, c.kb, at)
				if !slices.Equal(got, want) {
					t.Errorf("got  %v\nwant %v", got, want)
				}
			})
		}
	}
}
