package workbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
)

// runRecord is a finished run's metrics.json: written last, so its presence marks the run done.
type runRecord struct {
	ID          string            `json:"id"`
	Group       string            `json:"group"`
	Seed        int64             `json:"seed"`
	ConfigHash  string            `json:"config_hash"`
	TrainHash   string            `json:"train_hash"`
	Axes        map[string]string `json:"axes"`
	Data        dataSummary       `json:"data"`
	Train       trainSummary      `json:"train"`
	EvalSeconds float64           `json:"eval_seconds"`
	Results     []metrics.Result  `json:"results"`
	Curve       models.Curve      `json:"curve"`
}

// dataSummary records the sizes of the data a run saw.
type dataSummary struct {
	Name        string `json:"name"`
	Queries     int    `json:"queries"`
	Items       int    `json:"items"`
	Train       int    `json:"train"`
	Test        int    `json:"test"`
	TestQueries int    `json:"test_queries"`
	Report      string `json:"report"`
	// SliceNotes says which popularity slices are empty, and why (see emptySlices).
	SliceNotes []string `json:"slice_notes,omitempty"`
}

// trainSummary records how training went.
type trainSummary struct {
	Steps          int     `json:"steps"`
	Seconds        float64 `json:"seconds"`
	ExamplesPerSec float64 `json:"examples_per_sec"`
	FinalLoss      float64 `json:"final_loss"`
}

// plannedRun is one cell of the grid with its resolved config.
type plannedRun struct {
	cell
	cfg       *Config
	hash      string // of the run's config (without [plots])
	trainHash string // of what its training depends on
	dir       string
}

// plan expands the grid and resolves every run's config before anything runs, so that a bad
// axis key or value is reported at once.
func plan(raw, cfg *Config) ([]plannedRun, error) {
	cells, err := expand(cfg.Ablation, cfg.Seeds)
	if err != nil {
		return nil, err
	}
	runs := make([]plannedRun, len(cells))
	for i, c := range cells {
		rc, err := cellConfig(raw, c)
		if err != nil {
			return nil, err
		}
		h, err := rc.hash()
		if err != nil {
			return nil, err
		}
		th, err := rc.trainHash()
		if err != nil {
			return nil, err
		}
		runs[i] = plannedRun{cell: c, cfg: rc, hash: h, trainHash: th, dir: filepath.Join(cfg.Out, "runs", c.ID)}
	}
	return runs, nil
}

// finished reads the run's record if the run finished with this very config.
func (r plannedRun) finished() (*runRecord, error) {
	rec, err := r.record()
	if rec == nil || rec.ConfigHash != r.hash {
		return nil, err
	}
	return rec, nil
}

// trained reads the run's record if the run trained with this very training config (its
// evaluation may differ) and its saved model is there.
func (r plannedRun) trained() (*runRecord, error) {
	rec, err := r.record()
	if rec == nil || rec.TrainHash != r.trainHash {
		return nil, err
	}
	if _, err := os.Stat(r.modelPath()); err != nil {
		return nil, nil
	}
	return rec, nil
}

// record reads the run's metrics.json, nil if there is none.
func (r plannedRun) record() (*runRecord, error) {
	var rec runRecord
	err := readJSON(filepath.Join(r.dir, "metrics.json"), &rec)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// modelPath is where the run saves its trained parameters.
func (r plannedRun) modelPath() string { return filepath.Join(r.dir, "model.bin") }

// runFunc performs one run, writing its own files into its directory, and returns its record
// (without the identity fields, which the scheduler fills).
type runFunc func(ctx context.Context, r plannedRun, progress io.Writer) (*runRecord, error)

// schedule runs the runs that are not finished (all with force), jobs at a time, and writes each
// one's metrics.json as it finishes. The first failure stops the others; finished runs are kept,
// so running the same command again resumes.
func schedule(ctx context.Context, runs []plannedRun, o options, stdout io.Writer, do runFunc) error {
	var todo []plannedRun
	finished := 0
	for _, r := range runs {
		if o.only != nil && !o.only.MatchString(r.ID) {
			continue
		}
		if !o.force {
			rec, err := r.finished()
			if err != nil {
				return err
			}
			if rec != nil {
				finished++
				continue
			}
		}
		todo = append(todo, r)
	}
	fmt.Fprintf(stdout, "%d runs: %d already finished, %d to run, %d at a time\n", len(runs), finished, len(todo), o.jobs)
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	begin := time.Now()
	next := make(chan plannedRun)
	for w := 0; w < o.jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				if ctx.Err() != nil {
					continue // handed over as the schedule was being cancelled
				}
				progress := stdout
				if o.jobs > 1 {
					progress = &prefixWriter{w: stdout, mu: &mu, prefix: r.ID + ": "}
				}
				start := time.Now()
				rec, err := do(ctx, r, progress)
				if err == nil {
					rec.ID, rec.Group, rec.Seed, rec.ConfigHash, rec.TrainHash = r.ID, r.Group, r.Seed, r.hash, r.trainHash
					rec.Axes = map[string]string{}
					for _, s := range r.Settings {
						rec.Axes[s.Key] = formatValue(s.Value)
					}
					err = writeJSON(filepath.Join(r.dir, "metrics.json"), rec)
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil && !errors.Is(err, context.Canceled) {
						firstErr = fmt.Errorf("run %s: %w", r.ID, err)
					}
					cancel()
				} else {
					done++
					elapsed := time.Since(begin)
					left := time.Duration(float64(elapsed) / float64(done) * float64(len(todo)-done))
					fmt.Fprintf(stdout, "[%d/%d] %s finished in %s (all: %s so far, about %s left)\n", done, len(todo), r.ID,
						time.Since(start).Round(time.Second/10), elapsed.Round(time.Second), left.Round(time.Second))
				}
				mu.Unlock()
			}
		}()
	}
	for _, r := range todo {
		select {
		case next <- r:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted after %d of %d runs; run the same command again to resume", done, len(todo))
	}
	return nil
}

// prefixWriter prefixes every line with the run id, so that parallel runs' progress lines stay
// readable; it is not a terminal, so trainers print plain lines to it.
type prefixWriter struct {
	w      io.Writer
	mu     *sync.Mutex
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\n\r")
		if i < 0 {
			return len(b), nil
		}
		line := p.buf[:i]
		if len(bytes.TrimSpace(line)) > 0 {
			p.mu.Lock()
			fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
			p.mu.Unlock()
		}
		p.buf = p.buf[i+1:]
	}
}

// records reads the records of every finished run of the grid, in grid order.
func records(runs []plannedRun) ([]*runRecord, error) {
	var out []*runRecord
	for _, r := range runs {
		rec, err := r.finished()
		if err != nil {
			return nil, err
		}
		if rec != nil {
			out = append(out, rec)
		}
	}
	return out, nil
}
