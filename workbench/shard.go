package workbench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// shard is one part of a grid split across the tasks of a job array: the runs whose position in
// the grid's stable order is ≡ Index (mod Count). Modulo rather than contiguous blocks, so that
// each task gets a mix of the grid's cells (a sweep over epochs or corpus sizes would otherwise
// put all the long runs in the last tasks). The zero value (Count 0) is the whole grid.
type shard struct {
	Index, Count int
	// Source says where the shard came from: "-shard" or the engine's variables.
	Source string
}

// sharded reports whether the shard is a part of the grid rather than all of it.
func (s shard) sharded() bool { return s.Count > 0 }

// has reports whether the run at position i of the grid belongs to the shard.
func (s shard) has(i int) bool { return !s.sharded() || i%s.Count == s.Index }

func (s shard) String() string {
	if !s.sharded() {
		return "the whole grid"
	}
	return fmt.Sprintf("shard %d/%d (from %s)", s.Index, s.Count, s.Source)
}

// parseShard reads -shard i/n: 0 ≤ i < n.
func parseShard(v string) (shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return shard{}, fmt.Errorf("-shard %s: want i/n, the 0-based index i of this part of n", v)
	}
	if n < 1 || i < 0 || i >= n {
		return shard{}, fmt.Errorf("-shard %s: want n >= 1 and 0 <= i < n", v)
	}
	return shard{Index: i, Count: n, Source: "-shard"}, nil
}

// engine describes how one job-array engine tells a task its index and the array's size.
type engine struct {
	name  string
	index string // the variable holding the task's index
	// first, last, step and count name the variables giving the array's range, where the engine
	// sets them ("" where it does not); base is the first index when first is unset.
	first, last, step, count string
	base                     int
	// unset lists values of index that mean "not an array task".
	unset []string
}

// engines are the job-array engines whose variables select a shard, in the order they are
// checked; a task seeing the variables of two engines is an error.
var engines = []engine{
	// Slurm: --array=a-b[:s] sets the task id, min, max, step and count.
	{name: "Slurm", index: "SLURM_ARRAY_TASK_ID", first: "SLURM_ARRAY_TASK_MIN", last: "SLURM_ARRAY_TASK_MAX", step: "SLURM_ARRAY_TASK_STEP", count: "SLURM_ARRAY_TASK_COUNT"},
	// Kubernetes Indexed Job: 0-based, no count variable (give -shard-count = completions).
	{name: "Kubernetes", index: "JOB_COMPLETION_INDEX"},
	// AWS Batch array job: 0-based, no count variable.
	{name: "AWS Batch", index: "AWS_BATCH_JOB_ARRAY_INDEX"},
	// Google Cloud Batch: 0-based with the task count.
	{name: "GCP Batch", index: "BATCH_TASK_INDEX", count: "BATCH_TASK_COUNT"},
	// LSF job array "name[a-b:s]": 1-based by default; 0 means not an array job.
	{name: "LSF", index: "LSB_JOBINDEX", last: "LSB_JOBINDEX_END", step: "LSB_JOBINDEX_STEP", base: 1, unset: []string{"0"}},
	// Grid Engine -t a-b:s: first, last and step set; "undefined" outside an array job.
	{name: "SGE", index: "SGE_TASK_ID", first: "SGE_TASK_FIRST", last: "SGE_TASK_LAST", step: "SGE_TASK_STEPSIZE", base: 1, unset: []string{"undefined"}},
}

// shardFromEnv finds the shard from a job-array engine's variables (lookup is os.LookupEnv in the
// command, a table in tests); count is -shard-count (0 when not given), needed by engines that do
// not tell the array's size. With no engine's variables set it returns the whole grid.
func shardFromEnv(lookup func(string) (string, bool), count int) (shard, error) {
	var found []shard
	for _, e := range engines {
		s, ok, err := e.shard(lookup, count)
		if err != nil {
			return shard{}, err
		}
		if ok {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		if count > 0 {
			return shard{}, fmt.Errorf("-shard-count %d: no job-array index variable is set (%s); give -shard i/n", count, indexVariables())
		}
		return shard{}, nil
	case 1:
		return found[0], nil
	}
	return shard{}, fmt.Errorf("the variables of two job-array engines are set (%s and %s): give -shard i/n", found[0].Source, found[1].Source)
}

func indexVariables() string {
	names := make([]string, len(engines))
	for i, e := range engines {
		names[i] = e.index
	}
	return strings.Join(names, ", ")
}

// shard reads the engine's variables; ok is false when its index variable is not set.
func (e engine) shard(lookup func(string) (string, bool), flagCount int) (s shard, ok bool, err error) {
	raw, ok := lookup(e.index)
	raw = strings.TrimSpace(raw)
	if !ok || raw == "" || slices.Contains(e.unset, raw) {
		return shard{}, false, nil
	}
	num := func(name string) (int, bool, error) {
		if name == "" {
			return 0, false, nil
		}
		v, ok := lookup(name)
		if !ok || strings.TrimSpace(v) == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, false, fmt.Errorf("%s=%q: not an integer", name, v)
		}
		return n, true, nil
	}
	id, _, err := num(e.index)
	if err != nil {
		return shard{}, false, err
	}
	first, hasFirst, err := num(e.first)
	if err != nil {
		return shard{}, false, err
	}
	if !hasFirst {
		first = e.base
	}
	step, hasStep, err := num(e.step)
	if err != nil {
		return shard{}, false, err
	}
	if !hasStep || step == 0 {
		step = 1
	}
	if step < 0 {
		return shard{}, false, fmt.Errorf("%s=%d: want a positive step", e.step, step)
	}
	count, hasCount, err := num(e.count)
	if err != nil {
		return shard{}, false, err
	}
	if last, hasLast, err := num(e.last); err != nil {
		return shard{}, false, err
	} else if !hasCount && hasLast {
		count, hasCount = (last-first)/step+1, true
	}
	src := fmt.Sprintf("%s %s=%d", e.name, e.index, id)
	switch {
	case hasCount && flagCount > 0 && flagCount != count:
		return shard{}, false, fmt.Errorf("-shard-count %d disagrees with %s's array of %d tasks", flagCount, e.name, count)
	case !hasCount && flagCount == 0:
		return shard{}, false, fmt.Errorf("%s is set but %s does not tell the number of tasks: give -shard-count n", e.index, e.name)
	case !hasCount:
		count = flagCount
	}
	if (id-first)%step != 0 {
		return shard{}, false, fmt.Errorf("%s: index %d is not first index %d plus a multiple of step %d", src, id, first, step)
	}
	index := (id - first) / step
	if count < 1 || index < 0 || index >= count {
		return shard{}, false, fmt.Errorf("%s: index %d (counting from %d) is out of range for %d tasks", src, id, first, count)
	}
	return shard{Index: index, Count: count, Source: src}, true, nil
}
