package workbench

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
)

// runRetrieval trains and evaluates every run of the grid that is not finished yet, then writes
// the experiment's metrics.csv, summary.md and figures from every finished run.
func runRetrieval(ctx context.Context, raw, cfg *Config, o options, stdout io.Writer) error {
	runs, err := plan(raw, cfg)
	if err != nil {
		return err
	}
	if err := claimOutput(cfg.Out, cfg); err != nil {
		return err
	}
	cache := &dataCache{sets: map[string]*cachedData{}}
	runErr := schedule(ctx, runs, o, stdout, func(ctx context.Context, r plannedRun, progress io.Writer) (*runRecord, error) {
		var old *runRecord
		if !o.force {
			var err error
			if old, err = r.trained(); err != nil {
				return nil, err
			}
		}
		return runOne(ctx, r, old, cache, progress)
	})
	recs, err := records(runs)
	if err != nil {
		return err
	}
	if len(recs) > 0 {
		if err := writeRetrievalOutputs(cfg, recs); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "results of %d runs in %s (metrics.csv, summary.md, figures)\n", len(recs), cfg.Out)
	}
	return runErr
}

// cachedData is a dataset loaded once for all the runs that share its settings and seed.
type cachedData struct {
	once sync.Once
	ds   *datasets.Dataset
	err  error
}

// dataCache loads each distinct (data settings, seed) once, however many runs use it.
type dataCache struct {
	mu   sync.Mutex
	sets map[string]*cachedData
}

func (c *dataCache) load(s datasets.Settings, seed int64) (*datasets.Dataset, error) {
	key := fmt.Sprintf("%#v/%d", s, seed)
	c.mu.Lock()
	d, ok := c.sets[key]
	if !ok {
		d = &cachedData{}
		c.sets[key] = d
	}
	c.mu.Unlock()
	d.once.Do(func() { d.ds, d.err = datasets.Load(s, seed) })
	return d.ds, d.err
}

// writeRunConfig writes the run's resolved config into its folder.
func writeRunConfig(r plannedRun) error {
	body, err := r.cfg.encode()
	if err != nil {
		return err
	}
	return writeBytes(filepath.Join(r.dir, "config.toml"), body)
}

// runOne is one run: data, model, training (estimator in the loop), full-corpus evaluation. It
// writes the run's config.toml, curve.csv and model.bin; the scheduler writes metrics.json. When
// old is the record of the same training (only [eval] or [slices] changed), the run's saved model
// is evaluated again instead of retrained, and old's training summary and curve are kept.
func runOne(ctx context.Context, r plannedRun, old *runRecord, cache *dataCache, progress io.Writer) (*runRecord, error) {
	cfg := r.cfg
	if err := writeRunConfig(r); err != nil {
		return nil, err
	}
	ds, err := cache.load(cfg.Data, cfg.DataSeed)
	if err != nil {
		return nil, err
	}
	counts := ds.ItemCounts()
	m, err := models.New(cfg.Model, ds, tensor.Float32, r.Seed)
	if err != nil {
		return nil, err
	}
	var summary trainSummary
	var curve models.Curve
	if old != nil {
		fmt.Fprintf(progress, "%s: training unchanged, evaluating its saved model again\n", r.ID)
		if err := m.Load(r.modelPath()); err != nil {
			return nil, err
		}
		summary, curve = old.Train, old.Curve
	} else if summary, curve, err = train(ctx, r, m, ds, counts, progress); err != nil {
		return nil, err
	}
	rec, err := evaluate(ctx, m, ds, counts, cfg, r.Seed, progress)
	if err != nil {
		return nil, err
	}
	rec.Train, rec.Curve = summary, curve
	return rec, nil
}

// train trains m with the run's estimator and loss, and saves its curve and parameters.
func train(ctx context.Context, r plannedRun, m *models.Model, ds *datasets.Dataset, counts []int64, progress io.Writer) (trainSummary, models.Curve, error) {
	cfg := r.cfg
	env := estimators.Env{BatchSize: cfg.Train.BatchSize, CorpusSize: ds.Items, Counts: counts, EmbeddingDim: m.Dim()}
	est, err := estimators.New(cfg.Estimator, env, r.Seed)
	if err != nil {
		return trainSummary{}, nil, err
	}
	start := time.Now()
	curve, err := models.Train(ctx, m, ds, est, cfg.Loss, cfg.Train, r.Seed, progress)
	if err != nil {
		return trainSummary{}, nil, err
	}
	seconds := time.Since(start).Seconds()
	if err := writeAtomic(filepath.Join(r.dir, "curve.csv"), func(w io.Writer) error { return writeCurve(w, curve) }); err != nil {
		return trainSummary{}, nil, err
	}
	if err := m.Save(r.modelPath()); err != nil {
		return trainSummary{}, nil, err
	}
	last := curve[len(curve)-1]
	return trainSummary{Steps: last.Step, Seconds: seconds, ExamplesPerSec: float64(last.Step*cfg.Train.BatchSize) / seconds, FinalLoss: last.Loss}, curve, nil
}

// evaluate embeds the test queries and the whole corpus and ranks every item for every test pair;
// the record it returns holds the results, the data's sizes and report, and the evaluation time.
func evaluate(ctx context.Context, m *models.Model, ds *datasets.Dataset, counts []int64, cfg *Config, seed int64, progress io.Writer) (*runRecord, error) {
	start := time.Now()
	row := map[int32]int32{}
	var queries []int32
	pairs := make([]metrics.Pair, len(ds.Test))
	for i, it := range ds.Test {
		r, ok := row[it.Query]
		if !ok {
			r = int32(len(queries))
			row[it.Query] = r
			queries = append(queries, it.Query)
		}
		pairs[i] = metrics.Pair{Query: r, Item: it.Item}
	}
	u, err := m.EmbedQueries(queries)
	if err != nil {
		return nil, err
	}
	// Rank by the model's logits s/τ: the ranking is the same as by s, and post-hoc logit
	// adjustment subtracts τ_la·log π from logits (Menon et al.), not from cosines in [-1, 1].
	if tau := cfg.Loss.Temperature; tau > 0 {
		for i := range u {
			u[i] /= float32(tau)
		}
	}
	items := make([]int32, ds.Items)
	for i := range items {
		items[i] = int32(i)
	}
	v, err := m.EmbedItems(items)
	if err != nil {
		return nil, err
	}
	in := metrics.Input{U: u, V: v, Dim: m.Dim(), Pairs: pairs, ItemSlice: metrics.AssignSlices(counts, cfg.Slices), LogPrior: logPrior(counts)}
	if cfg.Eval.Filter {
		known := ds.KnownPositives()
		in.Exclude = make([][]int32, len(queries))
		for r, q := range queries {
			in.Exclude[r] = known[q]
		}
	}
	results, err := metrics.EvaluateContext(ctx, in, cfg.Eval, seed, progress)
	if err != nil {
		return nil, err
	}
	return &runRecord{
		Data: dataSummary{Name: ds.Name, Queries: ds.Queries, Items: ds.Items, Train: len(ds.Train), Test: len(ds.Test),
			TestQueries: len(queries), Report: ds.Report.String()},
		EvalSeconds: time.Since(start).Seconds(),
		Results:     results,
	}, nil
}

// logPrior is the add-one smoothed log training label prior, log((c_y+1)/(N+M)): finite for
// items never seen in training, as post-hoc logit adjustment needs.
func logPrior(counts []int64) []float64 {
	var total int64
	for _, c := range counts {
		total += c
	}
	out := make([]float64, len(counts))
	den := math.Log(float64(total + int64(len(counts))))
	for i, c := range counts {
		out[i] = math.Log(float64(c+1)) - den
	}
	return out
}

func writeCurve(w io.Writer, curve models.Curve) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"step", "epoch", "loss", "examples_per_sec"}); err != nil {
		return err
	}
	for _, p := range curve {
		if err := cw.Write([]string{strconv.Itoa(p.Step), strconv.Itoa(p.Epoch), strconv.FormatFloat(p.Loss, 'g', 8, 64), strconv.FormatFloat(p.ExamplesPerSec, 'f', 0, 64)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
