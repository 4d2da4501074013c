package metrics

import (
	"fmt"
	"math"
	"runtime"

	"github.com/samplingbias/workbench/internal/setting"
)

// Filter is which items leave a test pair's ranking, Settings.Filter: the
// caller puts them in Input.Exclude.
type Filter string

// Filters (see Settings.Filter).
const (
	// FilterNone ranks every item; the zero value "" means the same.
	FilterNone Filter = "none"
	// FilterSeen drops the items the query interacted with in training (the
	// usual protocol of recommendation: an item already consumed is not
	// recommended again).
	FilterSeen Filter = "seen"
	// FilterKnown drops the query's known positives in train and test, the
	// "filtered" protocol of link prediction (Bordes et al. 2013).
	FilterKnown Filter = "known"
)

var filters = []Filter{FilterNone, FilterSeen, FilterKnown}

// UnmarshalText sets f from its name; an unknown name is an error that lists the allowed ones.
func (f *Filter) UnmarshalText(b []byte) error { return setting.Unmarshal(f, b, filters) }

// UnmarshalTOML takes a name, or the boolean of an earlier version: false is
// "none"; true, which meant "known", is an error that names the choices.
func (f *Filter) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		return f.UnmarshalText([]byte(v))
	case bool:
		if !v {
			*f = ""
			return nil
		}
	}
	return fmt.Errorf("eval.filter: is a name now: %q (the query's training items), %q (its train and test items, what true meant) or %q; got %v",
		FilterSeen, FilterKnown, FilterNone, v)
}

// Excludes reports whether f drops items (Input.Exclude) from rankings.
func (f Filter) Excludes() bool { return f != "" && f != FilterNone }

// Defaults of Settings, filled in by Resolve.
const (
	DefaultBootstrap  = 1000
	DefaultLogSeconds = 10
	DefaultExposure   = ExposureOn
	DefaultGamma      = 1.0
)

// DefaultK returns the default Settings.K, [10, 50, 100].
func DefaultK() []int { return []int{10, 50, 100} }

// Settings is the [eval] section. The zero value evaluates Recall@K and NDCG@K at the cut-offs
// DefaultK() and MRR, unfiltered, without logit adjustment, with DefaultBootstrap bootstrap
// resamples, on GOMAXPROCS workers.
type Settings struct {
	// K lists the cut-offs of Recall@K and NDCG@K, each at least 1, below the corpus size, and
	// no two equal (default DefaultK()).
	K []int `toml:"k"`
	// Filter removes from the ranking of each test pair the items of its query in
	// Input.Exclude: its training items (FilterSeen) or its known positives in train and test
	// (FilterKnown); the pair's own item is never removed. Default none (Resolve writes
	// FilterNone as "", so that both spellings are one experiment).
	Filter Filter `toml:"filter"`
	// LogitAdjust lists the post-hoc logit-adjustment strengths τ: every τ ranks the items by
	// score − τ·log π(item) and gives its own results; 0 is the plain ranking. Values must be
	// finite and distinct (default [0]).
	LogitAdjust []float64 `toml:"logit_adjust"`
	// Bootstrap is the number of bootstrap resamples of the test pairs behind the 95% intervals
	// (default DefaultBootstrap; -1 computes no interval: Lo = Hi = Value).
	Bootstrap int `toml:"bootstrap"`
	// Workers is the number of goroutines scoring and resampling (default runtime.GOMAXPROCS(0),
	// filled in by Resolve). The results do not depend on it (each resample, sampled negative
	// and block of scores has its own seed or order), so it is in no run's identity.
	Workers int `toml:"workers" zero:"runtime.GOMAXPROCS(0)" affects:"nothing"`
	// MaxPairs, when positive and smaller than the number of test pairs, evaluates a seeded
	// random sample of MaxPairs test pairs, stratified by the slice of the pair's item (see
	// "Sampled evaluation" in the package documentation); each sampled pair is still ranked
	// exactly against the whole corpus. 0 (the default) evaluates every test pair.
	MaxPairs int `toml:"max_pairs"`
	// LogSeconds is the minimum time between two plain progress lines when progress does not
	// go to a terminal; default DefaultLogSeconds. It changes nothing the evaluation computes and
	// is in no run's identity.
	LogSeconds float64 `toml:"log_seconds" affects:"nothing"`
	// Exposure evaluates what the top-K lists of the test queries recommend, at every K:
	// average recommended popularity (arp), the long-tail share (aplt), item coverage, the Gini
	// coefficient of exposure and novelty (see "Exposure" in the package documentation). "on"
	// evaluates the ranking as trained (τ_LA = 0, or the smallest |τ| of logit_adjust), "all"
	// every τ of logit_adjust (a top list per τ, so that many times the cost), "off" none
	// (default DefaultExposure).
	Exposure Exposure `toml:"exposure"`
	// Gamma is the exponent γ of the popularity weights pop(y)^−γ of popularity-stratified
	// Recall@K (Steck 2011) and of the debiased test set (Debiased), pop(y) the item's
	// interactions in train and test; γ > 0 (default DefaultGamma).
	Gamma float64 `toml:"gamma"`
	// Debiased evaluates a popularity-debiased test set beside the natural one: a seeded
	// resample, with replacement, of as many test pairs as there are, pair p drawn with
	// probability ∝ pop(y_p)^−Gamma; its Recall@K, NDCG@K and MRR by slice are reported as the
	// test set "debiased". Default false.
	Debiased bool `toml:"debiased"`
	// Propensity is Jain et al.'s propensity model of PSP@K and PSRecall@K, evaluated on
	// multi-label data.
	Propensity PropensitySettings `toml:"propensity"`
	// Sampled is the sampled evaluation beside the full one: every test pair ranked among its
	// item and n sampled negatives (Krichene & Rendle 2020).
	Sampled SampledSettings `toml:"sampled"`
	// WriteRun writes, per run, every test pair's top max(K) items in TREC run format and the
	// test pairs as qrels (see "Run files" in the package documentation), so that trec_eval,
	// ir_measures or ranx give the Recall@K and NDCG@K of metrics.csv; beside them items.tsv and
	// pairs.tsv map the files' docnos and qids to the data's item and query ids. Default false.
	WriteRun bool `toml:"write_run"`
	// SelectMetric is the validation metric of model selection (see "Model selection" in the
	// package documentation): recall, ndcg, mrr or strat_recall of the full ranking, higher
	// better. It is read by a run that selects on a validation set (train.validate_every,
	// SelectLATau), and set otherwise is an error. Default: ndcg where a run selects.
	SelectMetric Metric `toml:"select_metric"`
	// SelectK is the selection metric's cut-off, one of K (none for mrr). Default: the smallest
	// of K, 10 with the default K, the NDCG@10 of SASRec's and gSASRec's early stopping.
	SelectK int `toml:"select_k"`
	// SelectSlice is the slice of the validation pairs the selection metric is over: head,
	// torso, tail or all, or a popularity bin of the slices.method that makes them. Default:
	// all where a run selects.
	SelectSlice *Slice `toml:"select_slice"`
	// SelectLATau chooses the post-hoc logit-adjustment strength on the validation set: the τ of
	// LogitAdjust (at least two) whose ranking of the validation pairs has the best selection
	// metric is the only one the test set is evaluated at, so that the test results are of a
	// model selected without them. Default false: the test set is evaluated at every τ.
	SelectLATau bool `toml:"select_la_tau"`
}

// Exposure is which rankings the exposure metrics are evaluated for, Settings.Exposure.
type Exposure string

// Exposure settings (see Settings.Exposure).
const (
	ExposureOn  Exposure = "on"
	ExposureAll Exposure = "all"
	ExposureOff Exposure = "off"
)

var exposures = []Exposure{ExposureOn, ExposureAll, ExposureOff}

// UnmarshalText sets e from its name; an unknown name is an error that lists the allowed ones.
func (e *Exposure) UnmarshalText(b []byte) error { return setting.Unmarshal(e, b, exposures) }

// Resolve fills the defaults in place and validates the settings.
func (s *Settings) Resolve() error {
	if len(s.K) == 0 {
		s.K = DefaultK()
	}
	if len(s.LogitAdjust) == 0 {
		s.LogitAdjust = []float64{0}
	}
	setting.Default(&s.Bootstrap, DefaultBootstrap)
	setting.Default(&s.LogSeconds, DefaultLogSeconds)
	setting.Default(&s.Workers, runtime.GOMAXPROCS(0))
	if s.Filter == FilterNone {
		s.Filter = ""
	}
	setting.Default(&s.Exposure, DefaultExposure)
	setting.Default(&s.Gamma, DefaultGamma)
	return setting.First(
		setting.EnumFor("filter", s.Filter, filters, s.Filter != "", ""),
		checkK(s.K),
		checkLogitAdjust(s.LogitAdjust),
		setting.Require("bootstrap", s.Bootstrap >= -1,
			"must be a number of resamples >= 1 (0 means %d) or -1 for none, got %d", DefaultBootstrap, s.Bootstrap),
		setting.Require("max_pairs", s.MaxPairs >= 0,
			"must be a number of test pairs >= 1 (0 means all), got %d", s.MaxPairs),
		setting.Positive("log_seconds", s.LogSeconds),
		setting.Require("workers", s.Workers >= 0, "must be positive (0 means GOMAXPROCS), got %d", s.Workers),
		setting.OneOf("exposure", s.Exposure, exposures),
		setting.Require("gamma", s.Gamma > 0 && !math.IsInf(s.Gamma, 0),
			"must be a positive exponent of pop^−γ (1 weighs every item's test pairs alike when they follow its popularity), got %v", s.Gamma),
		setting.Require("select_la_tau", !s.SelectLATau || len(s.LogitAdjust) >= 2,
			"selects one of the strengths of logit_adjust on the validation set, which lists %d (%v): list the candidates", len(s.LogitAdjust), s.LogitAdjust),
		prefixed("propensity", s.Propensity.Resolve()),
		prefixed("sampled", s.Sampled.Resolve()),
	)
}

// prefixed prefixes a nested table's error with the table's key.
func prefixed(key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s.%w", key, err)
}

// listTaus reports, per τ of LogitAdjust, whether the evaluation keeps its queries' top lists:
// for every τ with run files or Exposure "all", else for the ranking as trained (RefTau) with
// exposure or propensity-scored metrics (training counts given); nil for none.
func (s *Settings) listTaus(in *Input) []bool {
	keep := make([]bool, len(s.LogitAdjust))
	switch {
	case s.WriteRun || in.Counts != nil && s.Exposure == ExposureAll:
		for k := range keep {
			keep[k] = true
		}
	case in.Counts != nil && (s.Exposure == ExposureOn || in.MultiLabel):
		keep[RefTau(s.LogitAdjust)] = true
	default:
		return nil
	}
	return keep
}

// RefTau returns the index of the ranking as trained among the strengths taus of post-hoc logit
// adjustment: that of τ = 0 if there is one, else of the smallest |τ|, the first of equal ones.
func RefTau(taus []float64) int {
	ref := 0
	for k, tau := range taus {
		if math.Abs(tau) < math.Abs(taus[ref]) {
			ref = k
		}
	}
	return ref
}

// checkK requires positive, distinct cut-offs.
func checkK(ks []int) error {
	for _, k := range ks {
		if k < 1 {
			return fmt.Errorf("k: must be positive, got %d", k)
		}
	}
	return setting.Distinct("k", ks)
}

// checkLogitAdjust requires finite, distinct strengths.
func checkLogitAdjust(taus []float64) error {
	for _, t := range taus {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("logit_adjust: must be finite, got %v", t)
		}
	}
	return setting.Distinct("logit_adjust", taus)
}

// needsPrior reports whether some τ is not zero, so that Input.LogPrior is needed.
func (s *Settings) needsPrior() bool {
	for _, t := range s.LogitAdjust {
		if t != 0 {
			return true
		}
	}
	return false
}
