package workbench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
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
	list   bool
	report bool
	// shard is the part of the grid this process runs (the whole grid by default), from -shard
	// or a job-array engine's variables.
	shard shard
	// me owns this invocation's run claims; claims are their heartbeat and staleness bound.
	me     owner
	claims claimTimes
	// lookupEnv reads the environment (os.LookupEnv in Main): the job-array engines' variables
	// and GOMEMLIMIT.
	lookupEnv func(string) (string, bool)
	// cpuProfile and memProfile are the files of -cpuprofile and -memprofile, "" for none.
	cpuProfile, memProfile string
}

// setFlags collects repeated -set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// onceEach rejects a key that two -set flags write, or -set out beside -out: the later would
// override the earlier, a value the user wrote that would then be ignored.
func onceEach(sets []string, out string) error {
	setBy := map[string]string{}
	for _, s := range sets {
		key, _, _ := splitSet(s)
		if first, twice := setBy[key]; twice {
			return fmt.Errorf("-set %s: %s is also set by -set %s: write it once", s, key, first)
		}
		setBy[key] = s
		if key == "out" && out != "" {
			return fmt.Errorf("-out %s and -set %s both name the output folder: give one", out, s)
		}
	}
	return nil
}

// parseFlags reads the flags; lookupEnv gives the job-array engines' variables (see shardFromEnv).
func parseFlags(args []string, stderr io.Writer, lookupEnv func(string) (string, bool)) (options, error) {
	o := options{claims: defaultClaimTimes, lookupEnv: lookupEnv}
	var sets setFlags
	var only, shardFlag string
	var shardCount int
	fs := flag.NewFlagSet(filepath.Base(os.Args[0]), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.config, "config", "", "TOML config file (required)")
	fs.StringVar(&o.out, "out", "", "output directory (overrides the config's out)")
	fs.Var(&sets, "set", "override a config value: section.key=value (repeatable, a key once). On the key of an ablation axis it replaces the axis by that value; on a key zipped with others in an axis it keeps the axis' tuples with that value (an error if none has it); a list on a key whose setting is not a list, section.key=[a,b], sweeps the key as an axis")
	fs.IntVar(&o.jobs, "jobs", 0, "runs in parallel (default: what the machine sustains without oversubscribing its cores); with more than one, each run's progress is plain lines prefixed by its id (the live progress bar of a terminal is for one run at a time)")
	fs.StringVar(&only, "only", "", "run only the runs whose id matches this regular expression")
	fs.BoolVar(&o.force, "force", false, "rerun finished runs instead of resuming")
	fs.BoolVar(&o.list, "list", false, "print the ids of the runs (of this shard), one per line, then their count; run nothing")
	fs.BoolVar(&o.report, "report", false, "train nothing: write metrics.csv, summary.md and the figures from the finished runs in the folder, naming the missing ones")
	fs.StringVar(&shardFlag, "shard", "", "run only part i/n of the grid: the runs at positions ≡ i (mod n) of its order, 0 <= i < n (default: from a job-array engine's variables, else the whole grid)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole command to this file (read it with go tool pprof)")
	fs.StringVar(&o.memProfile, "memprofile", "", "write the allocations of the whole command (pprof's allocs profile: alloc_space, inuse_space) to this file at its end")
	fs.IntVar(&shardCount, "shard-count", 0, "the number of tasks of a job array whose engine does not tell it (Kubernetes JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX)")
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
	if err := onceEach(sets, o.out); err != nil {
		return o, err
	}
	o.sets = sets
	written := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { written[f.Name] = true })
	if err := unusedFlags(written, o.report, o.list); err != nil {
		return o, err
	}
	switch {
	case shardCount < 0:
		return o, fmt.Errorf("-shard-count must be >= 1, got %d", shardCount)
	case o.report && (shardFlag != "" || shardCount > 0):
		return o, errors.New("-report covers the whole grid: -shard and -shard-count do not apply")
	case o.report && o.list:
		return o, errors.New("give -report or -list, not both")
	case shardFlag != "" && shardCount > 0:
		return o, errors.New("give -shard i/n or -shard-count n, not both")
	case shardFlag != "":
		s, err := parseShard(shardFlag)
		if err != nil {
			return o, err
		}
		o.shard = s
	case !o.report:
		s, err := shardFromEnv(lookupEnv, shardCount)
		if err != nil {
			return o, err
		}
		o.shard = s
	}
	me, err := newOwner()
	if err != nil {
		return o, err
	}
	o.me = me
	return o, nil
}

// unusedFlags refuses the flags written (by name) that the command's mode would ignore: -report
// and -list train nothing, so that -force and -jobs do not apply to them, and -report writes the
// report of the whole grid, which -only does not narrow.
func unusedFlags(written map[string]bool, report, list bool) error {
	mode, ignores := "", []string{}
	switch {
	case report:
		mode, ignores = "-report writes the whole grid's report from its finished runs and trains nothing", []string{"only", "force", "jobs"}
	case list:
		mode, ignores = "-list prints the runs and trains nothing", []string{"force", "jobs"}
	}
	var bad []string
	for _, name := range ignores {
		if written[name] {
			bad = append(bad, "-"+name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	if len(bad) == 1 {
		return fmt.Errorf("%s: %s does not apply", mode, bad[0])
	}
	return fmt.Errorf("%s: %s and %s do not apply", mode, strings.Join(bad[:len(bad)-1], ", "), bad[len(bad)-1])
}

// Main is the whole experiments command as a library call: it parses the command-line flags in
// args (without the program name), loads and checks the config, and runs the experiment, writing
// progress and results to stdout and flag help to stderr. It stops at SIGINT or SIGTERM. A
// program of one's own that registers loss variants and calls Main is the same command with
// those variants added (see examples/custom-loss). The job-array engines' variables (see -shard)
// are read from the process's environment.
func Main(args []string, stdout, stderr io.Writer) error {
	return MainEnv(args, stdout, stderr, os.LookupEnv)
}

// MainEnv is Main with the environment given by lookupEnv (os.LookupEnv in Main): it reads
// the variables of job-array engines (Slurm, Kubernetes, AWS Batch, GCP Batch, LSF, Grid Engine)
// that select a shard of the grid when -shard is not given.
func MainEnv(args []string, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) (err error) {
	o, err := parseFlags(args, stderr, lookupEnv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	sets := o.sets
	if o.out != "" {
		sets = append(sets[:len(sets):len(sets)], "out="+strconv.Quote(o.out)) // -out is -set out
	}
	g, err := Load(o.config, sets...)
	if err != nil {
		return err
	}
	for _, start := range []func() (func() error, error){o.startCPUProfile, o.startMemProfile} {
		stopProfile, err := start()
		if err != nil {
			return err
		}
		defer func() {
			if perr := stopProfile(); err == nil {
				err = perr
			}
		}()
	}
	if g.cfg.Experiment == ExperimentFreqSim {
		switch {
		case o.only != nil:
			return errors.New("-only: the freq_sim experiment runs its whole grid at once (in seconds)")
		case o.shard.sharded():
			return fmt.Errorf("%s: the freq_sim experiment runs its whole grid at once (in seconds), it has no shards", o.shard)
		case o.list || o.report:
			return errors.New("-list and -report: the freq_sim experiment runs its whole grid at once (in seconds)")
		}
	}
	ctx, stop := interruptible(stderr)
	defer stop()
	return g.do(ctx, o, stdout)
}

// interruptible returns the context of a command that stops at SIGINT or SIGTERM, and the
// function that ends the signal handling once the command has returned. The first signal cancels
// the context: training and evaluation stop at their next step or tile, finished runs and
// checkpoints are kept, and the command returns its "interrupted" summary. A second one ends the
// process at once, as the default handling of the signal does, after saying so on stderr. While
// the command runs, SIGPIPE is ignored: when stdout is a pipe whose reader the same Ctrl-C ended
// (a "| tee"), writing to it fails instead of killing the process before its summary (on stderr)
// is written.
func interruptible(stderr io.Writer) (context.Context, func()) {
	return interruptibleExit(stderr, func(sig os.Signal) {
		signal.Reset(sig)
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(sig) // the default handling: the process ends by the signal
		}
	})
}

// interruptibleExit is interruptible with exit ending the process at the second signal.
func interruptibleExit(stderr io.Writer, exit func(os.Signal)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	signal.Ignore(syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "interrupted: stopping at the next step; finished runs and checkpoints are kept (interrupt again to stop at once)")
		select {
		case sig := <-sigs:
			fmt.Fprintln(stderr, "interrupted again: stopping at once; finished runs and the last checkpoints are kept, run the same command again to resume")
			exit(sig)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		signal.Reset(syscall.SIGPIPE)
		close(done)
		cancel()
	}
}

// startCPUProfile starts the CPU profile of -cpuprofile and returns the function that stops it
// and closes the file (nothing to do without -cpuprofile).
func (o *options) startCPUProfile() (stop func() error, err error) {
	if o.cpuProfile == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(o.cpuProfile)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile %s: %w", o.cpuProfile, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("-cpuprofile %s: %w", o.cpuProfile, err)
		}
		return nil
	}, nil
}

// startMemProfile creates the file of -memprofile and returns the function that writes the
// allocs profile of the whole command to it (sampled at runtime.MemProfileRate) and closes it
// (nothing to do without -memprofile).
func (o *options) startMemProfile() (stop func() error, err error) {
	if o.memProfile == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(o.memProfile)
	if err != nil {
		return nil, fmt.Errorf("-memprofile: %w", err)
	}
	return func() error {
		werr := pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("-memprofile %s: %w", o.memProfile, werr)
		}
		return nil
	}, nil
}
