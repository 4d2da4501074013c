package workbench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"strings"
	"syscall"
)

// options are the command-line flags of one invocation.
type options struct {
	config string
	out    string
	sets   []string
	jobs   int
	only   *regexp.Regexp
	force  bool
}

// setFlags collects repeated -set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	var sets setFlags
	var only string
	fs := flag.NewFlagSet("experiments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.config, "config", "", "TOML config file (required)")
	fs.StringVar(&o.out, "out", "", "output directory (overrides the config's out)")
	fs.Var(&sets, "set", "override a config value: section.key=value (repeatable)")
	fs.IntVar(&o.jobs, "jobs", 0, "runs in parallel (default: what the machine sustains without oversubscribing its cores)")
	fs.StringVar(&only, "only", "", "run only the runs whose id matches this regular expression")
	fs.BoolVar(&o.force, "force", false, "rerun finished runs instead of resuming")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	if o.config == "" {
		return o, errors.New("-config FILE is required")
	}
	if o.jobs < 0 {
		return o, fmt.Errorf("-jobs must be >= 0, got %d", o.jobs)
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return o, fmt.Errorf("-only: %v", err)
		}
		o.only = re
	}
	o.sets = sets
	return o, nil
}

// Main is the whole experiments command as a library call: it parses the command-line flags in
// args (without the program name), loads and checks the config, and runs the experiment, writing
// progress and results to stdout and flag help to stderr. It stops at SIGINT or SIGTERM. A
// program of one's own that registers loss variants and calls Main is the same command with
// those variants added (see examples/custom-loss).
func Main(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	raw, cfg, err := loadConfig(o.config, o.sets)
	if err != nil {
		return err
	}
	if o.out != "" {
		raw.Out, cfg.Out = o.out, o.out
	}
	if o.jobs == 0 {
		o.jobs = defaultJobs(cfg.Experiment)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cfg.Experiment {
	case experimentFreqSim:
		if o.only != nil {
			return errors.New("-only: the freq_sim experiment runs its whole grid at once (in seconds)")
		}
		return runFreqSim(ctx, cfg, o, stdout)
	default:
		return runRetrieval(ctx, raw, cfg, o, stdout)
	}
}

// defaultJobs is the parallelism that keeps every core busy without oversubscribing it: the
// frequency simulation is single-threaded per run, while a training run already uses every core
// (its towers and BLAS calls are parallelised in Go), so retrieval runs go one at a time.
func defaultJobs(experiment string) int {
	if experiment == experimentFreqSim {
		return runtime.GOMAXPROCS(0)
	}
	return 1
}
