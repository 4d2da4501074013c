package workbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"

	"gorgonia.org/tensor"

	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
)

// Grid is an experiment loaded from its config: the grid of runs it defines, each cell of its
// ablation axes once per seed, and the results folder they go to. The command's flags are
// Grid's methods and Options: a program of one's own runs a grid without them.
type Grid struct {
	raw, cfg *Config
}

// Load reads the config file path strictly and applies the overrides sets in order, each
// "key=value" as the command's -set writes it ("out=results/x" chooses the results folder, as
// -out), a later one of a key replacing an earlier (the command refuses a key given twice).
// Every section is checked, every run's settings included: an error names the file and line, or
// the override, and the key.
func Load(path string, sets ...string) (*Grid, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, sets...)
}

// Parse is Load of a config given as its TOML text; path names it in errors, and a relative
// data.path in it is relative to path's folder.
func Parse(path string, text []byte, sets ...string) (*Grid, error) {
	raw, cfg, err := parseConfig(path, text, sets)
	if err != nil {
		return nil, err
	}
	if cfg.Experiment == ExperimentRetrieval {
		// Every run's settings are checked now; the runs' identities, which read the data's
		// files, when the grid runs (see Runs).
		cells, err := expand(cfg.Ablation, cfg.Seeds)
		if err != nil {
			return nil, err
		}
		for _, c := range cells {
			if _, err := cellConfig(raw, c); err != nil {
				return nil, err
			}
		}
	}
	return &Grid{raw: raw, cfg: cfg}, nil
}

// Config returns a copy of the grid's resolved config: every section with its defaults filled
// (for the first cell of the ablation axes; each run resolves its own, see Runs).
func (g *Grid) Config() Config {
	c, _ := g.cfg.clone()
	return *c
}

// Out is the results folder.
func (g *Grid) Out() string { return g.cfg.Out }

// Run is one run of a grid: a cell of its ablation axes at a seed.
type Run struct {
	// ID names the run ("variant=logq,temperature=0.07,seed=2") and its folder, Dir.
	ID string
	// Group is the ID without the seed: the cell, whose runs are averaged together.
	Group string
	Seed  int64
	// Axes holds the run's value of each axis key, as its id writes it.
	Axes map[string]string
	// Config is the run's resolved config.
	Config Config
	Dir    string

	planned plannedRun
}

// Runs lists the runs of the grid, in its order (the order -list prints and -shard splits). A
// retrieval experiment has runs; the frequency simulation runs its grid of alphas and hashes as
// one whole, and has none.
func (g *Grid) Runs() ([]Run, error) {
	if g.cfg.Experiment != ExperimentRetrieval {
		return nil, nil
	}
	planned, err := plan(g.raw, g.cfg)
	if err != nil {
		return nil, err
	}
	out := make([]Run, len(planned))
	for i, p := range planned {
		c, _ := p.cfg.clone()
		out[i] = Run{ID: p.ID, Group: p.Group, Seed: p.Seed, Axes: p.axes(), Config: *c, Dir: p.dir, planned: p}
	}
	return out, nil
}

// Options are how Do runs a grid: the command's flags that select and schedule runs. The zero
// value runs every run of the grid that is not finished, as many at a time as the machine
// sustains, and discards the progress lines.
type Options struct {
	// Jobs is the number of runs in parallel; 0 picks (as -jobs 0).
	Jobs int
	// Only, if not nil, selects the runs whose id it matches (as -only).
	Only *regexp.Regexp
	// Force runs finished runs again (as -force).
	Force bool
	// Stdout receives the progress and result lines; nil discards them.
	Stdout io.Writer
}

// options are the command's options of o.
func (o Options) options() (options, error) {
	if o.Jobs < 0 {
		return options{}, fmt.Errorf("workbench: Options.Jobs must be >= 0, got %d", o.Jobs)
	}
	me, err := newOwner()
	if err != nil {
		return options{}, err
	}
	return options{jobs: o.Jobs, only: o.Only, force: o.Force, me: me, claims: defaultClaimTimes, lookupEnv: os.LookupEnv}, nil
}

// Do runs the grid as the command does: it trains and evaluates every selected run that is not
// finished in the results folder (a run stopped mid-training resumes from its checkpoint), then
// writes the folder's config.toml, metrics.csv, summary.md and figures; the frequency
// simulation runs its grid and writes its files. Cancelling ctx stops the runs at their next
// step, keeping what is finished; Do then returns an error saying so.
func (g *Grid) Do(ctx context.Context, o Options) error {
	opts, err := o.options()
	if err != nil {
		return err
	}
	return g.do(ctx, opts, orDiscard(o.Stdout))
}

// do is Do with the command's options.
func (g *Grid) do(ctx context.Context, o options, stdout io.Writer) error {
	if g.cfg.Experiment == ExperimentFreqSim {
		if o.jobs == 0 {
			// One cell per core: the simulation is single-threaded per cell. (A retrieval grid's
			// default depends on its runs' memory: retrievalJobs.)
			o.jobs = runtime.GOMAXPROCS(0)
		}
		return runFreqSim(ctx, g.cfg, o, stdout)
	}
	return runRetrieval(ctx, g.raw, g.cfg, o, stdout)
}

// Report writes the folder's config.toml, metrics.csv, summary.md and figures from the runs of
// the grid that have finished, naming the missing ones on stdout (nil discards), as -report
// does; it trains nothing.
func (g *Grid) Report(stdout io.Writer) error {
	if g.cfg.Experiment != ExperimentRetrieval {
		return errors.New("workbench: the freq_sim experiment writes its report as it runs")
	}
	opts, err := Options{}.options()
	if err != nil {
		return err
	}
	opts.report = true
	return g.do(context.Background(), opts, orDiscard(stdout))
}

// Finished is a finished run with its results.
type Finished struct {
	Run
	// Results are its metrics by logit adjustment, slice, metric and K, with their bootstrap
	// intervals; MostPopular the most-popular ranking's on the same test pairs.
	Results, MostPopular []metrics.Result
}

// Finished reads the runs of the grid that have finished in the results folder with its
// settings, in the grid's order.
func (g *Grid) Finished() ([]Finished, error) {
	runs, err := g.Runs()
	if err != nil {
		return nil, err
	}
	var out []Finished
	for _, r := range runs {
		rec, err := r.planned.finished()
		if err != nil {
			return nil, err
		}
		if rec != nil {
			out = append(out, Finished{Run: r, Results: rec.Results, MostPopular: rec.MostPopular})
		}
	}
	return out, nil
}

// Evaluate evaluates the saved model of run r (trained: its model.bin is in its folder) on its
// data's test pairs with the [eval] and [slices] settings of r.Config, which may differ from the
// run's (other cut-offs, filter, slices), and returns the results; it writes nothing. r.Config's
// other settings must be those the run was trained with. The progress of the evaluation goes to
// progress (nil discards it).
func (g *Grid) Evaluate(ctx context.Context, r Run, progress io.Writer) ([]metrics.Result, error) {
	progress = orDiscard(progress)
	own := r.Config
	th, err := own.trainHash()
	if err != nil {
		return nil, err
	}
	if th != r.planned.trainHash {
		return nil, fmt.Errorf("run %s: Run.Config's training settings are not those the run was trained with: Evaluate reads only its [eval] and [slices]", r.ID)
	}
	cfg, err := r.planned.cfg.clone()
	if err != nil {
		return nil, err
	}
	cfg.Eval, cfg.Slices = r.Config.Eval, r.Config.Slices
	if err := isetting.First(section("slices", cfg.Slices.Resolve()), section("eval", cfg.Eval.Resolve()), cfg.resolveSelection()); err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	cache := &dataCache{sets: map[string]*cachedData{}}
	ds, err := cache.load(cfg, progress)
	if err == nil {
		err = checkEval(cfg, ds, ds.ItemCounts())
	}
	if err != nil {
		return nil, err
	}
	m, err := models.New(cfg.Model, ds, tensor.Float32, r.Seed)
	if err != nil {
		return nil, err
	}
	if err := m.Load(r.planned.modelPath()); err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	planned := r.planned
	planned.cfg = cfg
	rec, err := evaluate(ctx, m, ds, planned, false, progress)
	if err != nil {
		return nil, err
	}
	return rec.Results, nil
}

// orDiscard is w, or io.Discard for nil.
func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
