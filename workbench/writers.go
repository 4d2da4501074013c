package workbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Writers keep two configs from writing one results folder at the same time. A folder admits
// configs that differ in their evaluation, figures or grid (one after the other: runs are then
// evaluated again, figures redrawn), but two such commands at once would each evaluate again the
// runs the other has just finished and write their reports over each other's, leaving a folder
// whose runs, metrics.csv, summary.md and figures are of neither config.
//
// So every command that writes into a folder (a run, a shard of one, -report) first registers
// there, in .writers/<token>.json, what it writes: the config hashes of its runs and whether it
// writes the folder-level files, with its canonical settings. It then compares itself with the
// other registrations whose process is alive (as claims are judged: see claimTimes.live) and
// refuses when one of them writes a run of its own with another config hash, or when both write
// the folder-level files and their settings differ, naming that process and the settings that
// differ. Commands of one config, such as the tasks of a job array, coordinate through their runs'
// claims. Two conflicting commands registering at the same moment may both refuse; never both
// proceed. The registration is touched while the command runs and removed when it ends; one left
// by a dead process is removed by the next command that reads it.

// writersDir is the folder of the registrations and of the report lock, inside the results
// folder.
const writersDir = ".writers"

// The folder-level files are written under the report lock, writersDir/report.lock, a claim
// (see claimFile) taken before the finished runs are read and released once the files are
// written: two commands of one config (a run ending as -report runs) each write every file of
// their report, the second from the runs finished when it reads them, rather than a folder of
// one's summary.md and the other's metrics.csv. A command that finds the lock held waits, for at
// most claimTimes.wait. An unsharded run writes the folder's config.toml before its runs, outside
// the lock: the commands that write a folder's report at once have the same settings (register
// refuses others), so that they write the same config.toml.
const reportLock = "report.lock"

// reportPoll is how often a command waiting for the report lock looks at it.
const reportPoll = 200 * time.Millisecond

// lockReport takes the report lock of the results folder out for o's command, waiting while
// another live command holds it (until ctx is done), and returns the function that releases it.
func lockReport(ctx context.Context, out string, o options, stdout io.Writer) (release func() error, err error) {
	dir := filepath.Join(out, writersDir)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(o.claims.wait)
	var said string
	for {
		c, held, err := claimFile(filepath.Join(dir, reportLock), o.me, o.claims)
		switch {
		case err != nil:
			return nil, err
		case c != nil:
			return c.release, nil
		case time.Now().After(deadline):
			return nil, fmt.Errorf("%s's report has been written by %s for more than %s: run with -report once it has ended", out, held, o.claims.wait)
		}
		if line := held.String(); line != said {
			fmt.Fprintf(stdout, "waiting for %s, which is writing %s's report\n", line, out)
			said = line
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("interrupted while waiting for %s, which is writing %s's report", held, out)
		case <-time.After(reportPoll):
		}
	}
}

// writer is a command's registration in a results folder.
type writer struct {
	owner
	// Runs are the config hashes of the runs the command may write, by id.
	Runs map[string]string `json:"runs,omitempty"`
	// Report says that the command writes the folder-level files (config.toml, metrics.csv,
	// summary.md, figures).
	Report bool `json:"report,omitempty"`
	// Settings are the command's canonical settings that decide what it writes, by key.
	Settings map[string]string `json:"settings"`
}

// newWriter is the registration of the command me running cfg, which writes the runs runs and,
// with report, the folder-level files.
func newWriter(me owner, cfg *Config, runs []plannedRun, report bool) (writer, error) {
	kvs, err := cfg.canonical(affectsTraining, affectsEvaluation, affectsGrid, affectsFigures)
	if err != nil {
		return writer{}, err
	}
	w := writer{owner: me, Runs: map[string]string{}, Report: report, Settings: map[string]string{}}
	for _, kv := range kvs {
		w.Settings[kv.Key] = kv.Value
	}
	for _, r := range runs {
		w.Runs[r.ID] = r.hash
	}
	return w, nil
}

// registerWriter registers the command of options o running cfg in cfg.Out (see register): it
// writes the runs of runs it selects and, with report, the folder-level files. It returns the
// function that removes the registration.
func registerWriter(cfg *Config, runs []plannedRun, o options, report bool) (release func() error, err error) {
	w, err := newWriter(o.me, cfg, selected(runs, o, true), report)
	if err != nil {
		return nil, err
	}
	c, err := register(cfg.Out, w, o.claims)
	if err != nil {
		return nil, err
	}
	return c.release, nil
}

// register records w in the results folder out and returns its claim, which the command releases
// when it ends, or refuses w when a live command writes what w writes otherwise (see Writers).
func register(out string, w writer, times claimTimes) (*claim, error) {
	dir := filepath.Join(out, writersDir)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	body, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, w.Token+".json")
	if err := createExclusive(path, body); err != nil {
		return nil, err
	}
	c := hold(path, w.owner, times)
	others, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	for _, p := range others {
		if p == path {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			continue // ended meanwhile
		}
		var other writer
		if readJSON(p, &other) != nil {
			continue // not a registration of this version
		}
		if !times.live(other.owner, w.owner, st.ModTime()) {
			os.Remove(p) // left by a process that died
			continue
		}
		if msg := w.conflict(other); msg != "" {
			if err := c.release(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s is being written by %s with other settings (%s): %s; wait for it to end, or use another -out",
				out, other.owner, w.differences(other), msg)
		}
	}
	return c, nil
}

// conflict says what w and other, two commands at work in one folder, would both write
// differently: a run of both whose config hashes differ, or the folder-level files when both
// write them and their settings differ. It is "" when they can work side by side.
func (w writer) conflict(other writer) string {
	for _, id := range slices.Sorted(maps.Keys(w.Runs)) {
		if h, ok := other.Runs[id]; ok && h != w.Runs[id] {
			return fmt.Sprintf("both would write run %s, each with its own settings, over the other's", id)
		}
	}
	if w.Report && other.Report && !maps.Equal(w.Settings, other.Settings) {
		return "both would write the folder's config.toml, summary.md, tables (metrics.csv, tv.csv) and figures, each of its own config, over the other's"
	}
	return ""
}

// differences lists the settings of w and other that differ, at most three, each shown as a
// folder refusal shows it (shownSetting): a setting the canonical encoding leaves out as what it
// resolves to.
func (w writer) differences(other writer) string {
	var out []string
	for _, k := range differingKeys(w.Settings, other.Settings) {
		out = append(out, fmt.Sprintf("%s = %s here, %s there", k, shownSetting(w.Settings, k, nil), shownSetting(other.Settings, k, nil)))
	}
	if len(out) > 3 {
		out = append(out[:3], "…")
	}
	return strings.Join(out, "; ")
}
