// Package workbench is the experiment engine of the sampling-bias workbench, the library behind
// the experiments command: it loads and checks a TOML config (strictly: unknown keys, wrong
// types, out-of-range values and explicit zeros that would be replaced by a default are errors
// naming the file, line and key; runs that would overflow a count or exceed the machine's memory
// are refused before anything is allocated), expands its ablation grid over seeds, runs every run
// resumably, mid-training included (training two-tower models with each loss variant
// and evaluating full-corpus Recall@K, NDCG@K and MRR by head, torso and tail items, or Yi et
// al.'s frequency-estimation simulation), and hands the finished runs to package report, which
// writes metrics.csv, summary.md and the figures.
//
// A grid is callable from Go without the command's flags: Load (or Parse) reads a config with
// overrides as -set writes them and checks every run's settings; the Grid lists its Runs, runs
// them as the command does (Do, with Options for -jobs, -only and -force), reads the results of
// the Finished ones, evaluates a run's saved model again (Evaluate) and writes the report
// (Report, the -report step). Main is the command itself, Load and Do behind the flags: a
// program that registers its own loss variants and then calls Main is the experiments command
// with those variants added.
//
// # One schema
//
// The config's keys are those of one schema (package internal/schema) built from the settings
// types: their toml tags, an affects tag declaring what a change changes and a zero tag
// declaring what a written 0 means where it is a setting. Decoding checks the file's keys
// against it, -set, ablation values and a registered variant's options set keys through it,
// what was written is checked against the resolved config through it (a written zero that
// resolving would replace is an error), and errors name the line of the file, or the -set flag,
// that wrote the key. The canonical identities walk it, and docs/config.md is generated from it
// (go generate ./docs/).
//
// # Memory
//
// Before anything is trained, each run's memory is estimated from its config and data (the
// dataset's arrays, the model's tables and weights, the optimiser state and a training step's
// buffers, the frequency estimator's state, the evaluation's embeddings, ranks and resamples;
// training's and evaluation's parts are not live together), and a run that exceeds the machine's
// memory is refused, naming the config key of its largest part. Unless the environment sets GOMEMLIMIT, the command then sets
// the Go runtime's soft memory limit (runtime/debug.SetMemoryLimit) to the estimate of the runs
// it is about to run + half of it, at most 2 GiB, + 256 MiB, at most the machine's memory, and
// prints it: without a limit the garbage collector lets the heap grow to twice its live size
// (GOGC=100), which for a million-item corpus is gigabytes that the run never uses. The half
// leaves the collector room to work in; the room stops at 2 GiB because a large run's estimate
// is mostly tables and optimiser state that live for the whole run, while its garbage is a step's
// buffers; the 256 MiB is what the estimate leaves out (the runtime's own memory, small runs'
// constant costs). The limit is soft: an estimate that is too low makes the collector run more
// often, never the run fail. A GOMEMLIMIT in the environment (as "off" too) is left to the
// runtime. Main restores the previous limit when it returns.
//
// # Scale out
//
// A grid runs on a cluster unchanged. Its runs have a stable order (-list prints it); -shard i/n,
// or a job-array engine's variables when -shard is absent (Slurm, Kubernetes Indexed Jobs, AWS
// Batch, GCP Batch, LSF, Grid Engine; see MainEnv), makes a process run only the runs at positions
// ≡ i (mod n). The processes share one output folder, also on a network file system: each writes
// its runs' files atomically, claims a run before training it (runs/<id>/claim.json, so that no
// two processes train the same run; stale claims of dead processes are taken over, and a run held
// by a live process is waited for, so that a process never ends successfully with a run of its
// shard unfinished), and no shard writes the folder-level files. The report step (-report) then writes metrics.csv, summary.md
// and the figures from the finished runs, naming the missing ones.
//
// A results folder belongs to one set of training settings: the first process to use it writes
// training.settings exclusively, and a config whose training settings differ (other than its
// ablation axes) is refused, naming the settings. Configs that differ in what they evaluate or
// draw use a folder one after the other: a command is refused while a live command of another
// such config writes there (see register), and the folder-level files are written under a lock,
// one report at a time (see lockReport). The settings are compared in a canonical
// encoding (sorted keys, exact numbers, no TOML library involved) that names data by the content of
// the files its loader reads, so the same config run from another
// directory is the same config, and a grid given more seeds or cells runs only the new runs. What each config section affects (training, evaluation, figures) is declared
// by the `affects` tags of Config. A folder that holds files but no training.settings is not
// written into. A folder keeps the seeds of its finished runs: a seed added with -set stays in
// later commands' reports without that -set; a command whose -set writes the seeds runs those. A run's checkpoint is tied to the run's training
// settings, which its name carries (checkpoint-<training hash>.bin): one of other settings is
// refused, naming both.
//
// The identities in a folder (training.settings, the runs' hashes, ids and checkpoint names)
// have a schema version, which training.settings states; a folder of an earlier version is
// migrated once, by the first command that uses it (see migrateFolder), and nothing reads a
// folder in an earlier version's terms afterwards. A folder whose training.settings was deleted
// is taken back by a config whose finished runs it holds. The folder's report (metrics.csv,
// summary.md, figures) is of the grid of its config.toml: a command whose grid lacks some of
// its runs and adds none keeps it rather than replacing it with a narrower one.
//
// # Runs and their ids
//
// A run's id names its axis values (variant=logq,temperature=0.07,seed=1): each key by its last
// component, or by its whole path where that is ambiguous among the config's settings or the key
// is a loss option (estimator.kind, loss.options.alpha); empty values are left out. A run's
// folder is runs/<id>; one that holds a run of another cell (another grid's run whose id is the
// same) is never written into, -force or not. -set on an axis' key replaces
// the axis by that value (a zipped axis keeps its tuples with that value), and a list value
// sweeps a key (-set 'loss.temperature=[0.05,0.1]'); -only that matches no run is an error. Every
// config.toml the workbench writes loads as a -config and gives the same runs: a run's own
// config.toml holds its axis values as axes of one value, so that it is that run.
package workbench
