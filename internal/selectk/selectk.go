// Package selectk finds the k-th largest of a list without sorting it: the threshold of a top-k,
// which the metrics' top lists and the samplers that keep the top k of their candidates both need.
package selectk

import "cmp"

// KthLargest returns the k-th largest of xs (1 ≤ k ≤ len(xs)), reordering xs: Hoare's selection,
// the range halved around a median-of-three pivot. NaN must not occur.
func KthLargest[T cmp.Ordered](xs []T, k int) T {
	lo, hi, want := 0, len(xs)-1, k-1 // want: the index of the answer in decreasing order
	for lo < hi {
		mid := lo + (hi-lo)/2
		a, b, c := xs[lo], xs[mid], xs[hi]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for xs[i] > pivot {
				i++
			}
			for xs[j] < pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return xs[want]
		}
	}
	return xs[want]
}
