package metrics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/internal/setting"
)

// Slice is a popularity slice: the slice of an item (head, torso or tail, by its training
// count) or, in a Result, the group of test pairs a number is over (a slice's pairs, or all).
// It marshals as its name, so JSON and TOML hold "head", "torso", "tail" or "all".
type Slice uint8

// Slices, in the order of Slices().
const (
	SliceHead Slice = iota
	SliceTorso
	SliceTail
	SliceAll // every test pair; never the slice of an item
)

// Slices returns every Slice in reporting order: head, torso, tail, all. The popularity bins
// (SliceBin) come after them.
func Slices() []Slice { return []Slice{SliceHead, SliceTorso, SliceTail, SliceAll} }

var sliceNames = [...]string{SliceHead: "head", SliceTorso: "torso", SliceTail: "tail", SliceAll: "all"}

// MaxBins is the largest number of popularity bins (SliceSettings.Bins).
const MaxBins = 100

// SliceBin is the slice of popularity bin i (from 0, the most frequent items) of the quantile
// slice methods; it is named "bin<i+1>".
func SliceBin(i int) Slice { return SliceAll + 1 + Slice(i) }

// Bin reports the bin index of a SliceBin slice.
func (s Slice) Bin() (int, bool) {
	if s > SliceAll && int(s-SliceAll-1) < MaxBins {
		return int(s - SliceAll - 1), true
	}
	return 0, false
}

// String returns "head", "torso", "tail", "all" or "bin<n>".
func (s Slice) String() string {
	if int(s) < len(sliceNames) {
		return sliceNames[s]
	}
	if i, ok := s.Bin(); ok {
		return fmt.Sprintf("bin%d", i+1)
	}
	return fmt.Sprintf("Slice(%d)", uint8(s))
}

// MarshalText returns the slice's name; an unknown Slice is an error.
func (s Slice) MarshalText() ([]byte, error) {
	if _, ok := s.Bin(); int(s) >= len(sliceNames) && !ok {
		return nil, fmt.Errorf("metrics: unknown slice %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText sets s from its name.
func (s *Slice) UnmarshalText(b []byte) error {
	if i := slices.Index(sliceNames[:], string(b)); i >= 0 {
		*s = Slice(i)
		return nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(string(b), "bin")); err == nil && strings.HasPrefix(string(b), "bin") && n >= 1 && n <= MaxBins {
		*s = SliceBin(n - 1)
		return nil
	}
	return fmt.Errorf("metrics: unknown slice %q (allowed: %s, bin1 … bin%d)", b, strings.Join(sliceNames[:], ", "), MaxBins)
}

// Metric names a metric of a Result. It marshals as its string.
type Metric string

// Metrics, in the order of Metrics().
const (
	MetricRecall Metric = "recall" // Recall@K
	MetricNDCG   Metric = "ndcg"   // NDCG@K
	MetricMRR    Metric = "mrr"    // mean reciprocal rank (K = 0)
)

// Metrics of the other families: popularity-stratified recall, exposure, propensity-scored and
// sampled (see the package documentation).
const (
	MetricStratRecall     Metric = "strat_recall"     // popularity-stratified Recall@K (Steck 2011)
	MetricARP             Metric = "arp"              // average recommended popularity of the top K
	MetricAPLT            Metric = "aplt"             // share of long-tail items in the top K
	MetricCoverage        Metric = "coverage"         // share of the corpus in some top K
	MetricGini            Metric = "gini"             // Gini coefficient of the items' exposure in the top K
	MetricNovelty         Metric = "novelty"          // mean self-information of the top K's items
	MetricPSP             Metric = "psp"              // propensity-scored precision@K, normalised
	MetricPSRecall        Metric = "psrecall"         // propensity-scored recall@K
	MetricSampledRecall   Metric = "sampled_recall"   // HR@K among the item and its n negatives
	MetricSampledNDCG     Metric = "sampled_ndcg"     // NDCG@K among them
	MetricSampledMRR      Metric = "sampled_mrr"      // MRR among them
	MetricCorrectedRecall Metric = "corrected_recall" // Krichene & Rendle's estimate of Recall@K
	MetricCorrectedNDCG   Metric = "corrected_ndcg"   // and of NDCG@K
)

// Metrics returns the metrics of the full ranking in reporting order: recall, ndcg, mrr.
func Metrics() []Metric { return []Metric{MetricRecall, MetricNDCG, MetricMRR} }

// ExposureMetrics returns the exposure metrics of the top-K lists in reporting order: arp, aplt,
// coverage, gini, novelty.
func ExposureMetrics() []Metric {
	return []Metric{MetricARP, MetricAPLT, MetricCoverage, MetricGini, MetricNovelty}
}

// SampledMetrics returns the metrics of the sampled evaluation in reporting order:
// sampled_recall, sampled_ndcg, sampled_mrr, corrected_recall, corrected_ndcg.
func SampledMetrics() []Metric {
	return []Metric{MetricSampledRecall, MetricSampledNDCG, MetricSampledMRR, MetricCorrectedRecall, MetricCorrectedNDCG}
}

// AllMetrics returns every metric an evaluation can give: Metrics, strat_recall,
// ExposureMetrics, psp, psrecall, SampledMetrics and CalibrationMetrics.
func AllMetrics() []Metric {
	return slices.Concat(Metrics(), []Metric{MetricStratRecall}, ExposureMetrics(), []Metric{MetricPSP, MetricPSRecall}, SampledMetrics(),
		CalibrationMetrics())
}

// TestSet names the test pairs a Result is over, Result.Test: the natural test set ("", written
// "natural") or the popularity-debiased resample of it ("debiased", Settings.Debiased).
type TestSet string

// Test sets (see TestSet).
const (
	TestNatural  TestSet = ""
	TestDebiased TestSet = "debiased"
)

// String returns "natural" or "debiased".
func (t TestSet) String() string {
	if t == TestNatural {
		return "natural"
	}
	return string(t)
}

// SliceMethod is how items are assigned to slices, SliceSettings.Method.
type SliceMethod string

// Slice methods (see SliceSettings.Method).
const (
	SliceMethodCount SliceMethod = "count"
	SliceMethodMass  SliceMethod = "mass"
	SliceMethodRank  SliceMethod = "rank"
	// SliceMethodQuantiles and SliceMethodMassQuantiles replace head, torso and tail by
	// SliceSettings.Bins popularity bins (see PopularityBins).
	SliceMethodQuantiles     SliceMethod = "quantiles"
	SliceMethodMassQuantiles SliceMethod = "mass_quantiles"
)

var (
	sliceMethods = []SliceMethod{SliceMethodCount, SliceMethodMass, SliceMethodRank, SliceMethodQuantiles, SliceMethodMassQuantiles}
	binMethods   = []SliceMethod{SliceMethodQuantiles, SliceMethodMassQuantiles}
)

// UnmarshalText sets m from its name; an unknown name is an error that lists the allowed ones.
func (m *SliceMethod) UnmarshalText(b []byte) error { return setting.Unmarshal(m, b, sliceMethods) }

// Defaults of SliceSettings: Rawat et al.'s long-tail thresholds.
const (
	DefaultSliceMethod = SliceMethodCount
	DefaultHeadMin     = 100
	DefaultTailMax     = 20
	DefaultBins        = 10
)

// SliceSettings is the [slices] section: how items are assigned to head, torso and tail by their
// training frequency. The zero value is method DefaultSliceMethod with Rawat et al.'s long-tail
// thresholds.
type SliceSettings struct {
	// Method is one of
	//   - SliceMethodCount: head if the item has at least HeadMin training examples, tail if it
	//     has fewer than TailMax, torso otherwise;
	//   - SliceMethodMass: items ordered by decreasing count; head is the shortest prefix
	//     covering a third of all training interactions, torso the next third, tail the rest
	//     (items never seen in training are always tail);
	//   - SliceMethodRank: items ordered by decreasing count and cut into thirds by rank: of M
	//     items, head is the first ceil(M/3), torso the next ones up to rank ceil(2M/3), tail the
	//     rest.
	//   - SliceMethodQuantiles, SliceMethodMassQuantiles: no head, torso and tail but Bins
	//     popularity bins, bin1 the most frequent items, of equal numbers of items or of equal
	//     training-interaction mass, items of equal count never split (see PopularityBins).
	// "mass" and "rank" order items of equal count by increasing item index, so items of equal
	// count can straddle a boundary; "count" depends on the count only. Default
	// DefaultSliceMethod.
	Method SliceMethod `toml:"method"`
	// Bins is the number of popularity bins of the quantile methods, in [2, MaxBins] (default
	// DefaultBins).
	Bins int `toml:"bins"`
	// HeadMin is the minimum training count of a head item for method "count" (default
	// DefaultHeadMin).
	HeadMin int `toml:"head_min"`
	// TailMax is the count below which an item is tail for method "count" (default
	// DefaultTailMax). It must not exceed HeadMin.
	TailMax int `toml:"tail_max"`
}

// Resolve fills the defaults in place and validates the settings.
func (s *SliceSettings) Resolve() error {
	setting.Default(&s.Method, DefaultSliceMethod)
	count := s.Method == SliceMethodCount
	if count {
		setting.Default(&s.HeadMin, DefaultHeadMin)
		setting.Default(&s.TailMax, DefaultTailMax)
	}
	binned := slices.Contains(binMethods, s.Method)
	if binned {
		setting.Default(&s.Bins, DefaultBins)
	}
	return setting.First(
		setting.OneOf("method", s.Method, sliceMethods),
		setting.OnlyFor("bins", s.Bins != 0, binned, "only used with methods \"quantiles\" and \"mass_quantiles\", not %q; leave it 0", s.Method),
		setting.Require("bins", !binned || (s.Bins >= 2 && s.Bins <= MaxBins), "must be in [2, %d], got %d", MaxBins, s.Bins),
		setting.OnlyFor("head_min", s.HeadMin != 0, count, "only used with method \"count\", not %q; leave it 0", s.Method),
		setting.OnlyFor("tail_max", s.TailMax != 0, count, "only used with method \"count\", not %q; leave it 0", s.Method),
		setting.Require("head_min", s.HeadMin >= 0, "must be positive, got %d", s.HeadMin),
		setting.Require("tail_max", s.TailMax >= 0, "must be positive, got %d", s.TailMax),
		setting.Require("tail_max", s.TailMax <= s.HeadMin, "must not exceed head_min (%d), got %d", s.HeadMin, s.TailMax),
	)
}

// AssignSlices returns the slice of every item given its training count counts[j]. The settings
// are resolved on a copy, so the zero value works. Invalid settings (see Resolve) and negative
// counts are programming errors and panic: the experiments command resolves settings when it loads
// its configuration, and counts come from the training split.
func AssignSlices(counts []int64, s SliceSettings) []Slice {
	if err := s.Resolve(); err != nil {
		panic("metrics: AssignSlices: " + err.Error())
	}
	var total int64
	for j, c := range counts {
		if c < 0 {
			panic(fmt.Sprintf("metrics: AssignSlices: negative count %d for item %d", c, j))
		}
		total += c
	}
	out := make([]Slice, len(counts))
	if slices.Contains(binMethods, s.Method) {
		bin, err := PopularityBins(counts, s.Method, s.Bins)
		if err != nil {
			panic("metrics: AssignSlices: " + err.Error())
		}
		for j, b := range bin {
			out[j] = SliceBin(b)
		}
		return out
	}
	if s.Method == SliceMethodCount {
		for j, c := range counts {
			switch {
			case c >= int64(s.HeadMin):
				out[j] = SliceHead
			case c < int64(s.TailMax):
				out[j] = SliceTail
			default:
				out[j] = SliceTorso
			}
		}
		return out
	}

	order := make([]int32, len(counts))
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		// Decreasing count; the stable sort keeps increasing index among equal counts.
		switch {
		case counts[a] > counts[b]:
			return -1
		case counts[a] < counts[b]:
			return 1
		}
		return 0
	})
	// An item goes to head while what precedes it is below a third of the whole (mass of
	// interactions or number of items), to torso while below two thirds, else to tail.
	var before, whole int64 = 0, total
	if s.Method == SliceMethodRank {
		whole = int64(len(counts))
	}
	for _, j := range order {
		switch {
		case 3*before < whole:
			out[j] = SliceHead
		case 3*before < 2*whole:
			out[j] = SliceTorso
		default:
			out[j] = SliceTail
		}
		if s.Method == SliceMethodRank {
			before++
		} else {
			before += counts[j]
		}
	}
	return out
}
