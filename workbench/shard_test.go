package workbench

import (
	"strings"
	"testing"
)

// TestShardPartition: for n = 1..7 shards of grids of 0..20 runs, every run is in exactly one
// shard, and the shards' sizes differ by at most one.
func TestShardPartition(t *testing.T) {
	for n := 1; n <= 7; n++ {
		for runs := 0; runs <= 20; runs++ {
			owners := make([]int, runs)
			sizes := make([]int, n)
			for i := range n {
				s := shard{Index: i, Count: n}
				for r := range runs {
					if s.has(r) {
						owners[r]++
						sizes[i]++
					}
				}
			}
			for r, c := range owners {
				if c != 1 {
					t.Errorf("n=%d, %d runs: run %d is in %d shards", n, runs, r, c)
				}
			}
			lo, hi := runs, 0
			for _, s := range sizes {
				lo, hi = min(lo, s), max(hi, s)
			}
			if n <= runs && hi-lo > 1 {
				t.Errorf("n=%d, %d runs: shard sizes %v", n, runs, sizes)
			}
		}
	}
	if !(shard{}).has(12345) {
		t.Error("the zero shard (the whole grid) lacks a run")
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want shard
		err  string
	}{
		{"0/1", shard{0, 1, "-shard"}, ""},
		{"3/4", shard{3, 4, "-shard"}, ""},
		{" 2 / 7 ", shard{2, 7, "-shard"}, ""},
		{"4/4", shard{}, "0 <= i < n"},
		{"-1/4", shard{}, "0 <= i < n"},
		{"0/0", shard{}, "n >= 1"},
		{"1", shard{}, "want i/n"},
		{"a/b", shard{}, "want i/n"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseShard(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestShardFromEnv: each engine's variables, 0- and 1-based, with steps, missing counts and
// out-of-range indices.
func TestShardFromEnv(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		count int // -shard-count
		index int
		n     int
		err   string
	}{
		{name: "nothing set: the whole grid", env: nil},
		{name: "slurm 0-based", env: map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "4"}, index: 2, n: 4},
		{name: "slurm 1-based", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, index: 0, n: 4},
		{name: "slurm with a step", env: map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "12", "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, index: 2, n: 4},
		{name: "slurm count from min and max", env: map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_MAX": "9"}, index: 0, n: 5},
		{name: "slurm without a count", env: map[string]string{"SLURM_ARRAY_TASK_ID": "5"}, err: "does not tell the number of tasks"},
		{name: "slurm list outside the range", env: map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "3"}, err: "out of range for 3 tasks"},
		{name: "slurm bad number", env: map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "3"}, err: "SLURM_ARRAY_TASK_ID=\"x\": not an integer"},
		{name: "slurm count disagrees with -shard-count", env: map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, count: 3, err: "disagrees"},
		{name: "kubernetes with -shard-count", env: map[string]string{"JOB_COMPLETION_INDEX": "3"}, count: 4, index: 3, n: 4},
		{name: "kubernetes without a count", env: map[string]string{"JOB_COMPLETION_INDEX": "3"}, err: "give -shard-count n"},
		{name: "kubernetes out of range", env: map[string]string{"JOB_COMPLETION_INDEX": "4"}, count: 4, err: "out of range for 4 tasks"},
		{name: "aws batch", env: map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "0"}, count: 2, index: 0, n: 2},
		{name: "gcp batch", env: map[string]string{"BATCH_TASK_INDEX": "5", "BATCH_TASK_COUNT": "6"}, index: 5, n: 6},
		{name: "gcp batch out of range", env: map[string]string{"BATCH_TASK_INDEX": "6", "BATCH_TASK_COUNT": "6"}, err: "out of range"},
		{name: "lsf 1-based", env: map[string]string{"LSB_JOBINDEX": "1", "LSB_JOBINDEX_END": "3"}, index: 0, n: 3},
		{name: "lsf last", env: map[string]string{"LSB_JOBINDEX": "3", "LSB_JOBINDEX_END": "3"}, index: 2, n: 3},
		{name: "lsf not an array job", env: map[string]string{"LSB_JOBINDEX": "0"}},
		{name: "sge 1-based with a step", env: map[string]string{"SGE_TASK_ID": "5", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "9", "SGE_TASK_STEPSIZE": "2"}, index: 2, n: 5},
		{name: "sge off the step", env: map[string]string{"SGE_TASK_ID": "4", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "9", "SGE_TASK_STEPSIZE": "2"}, err: "not first index 1 plus a multiple of step 2"},
		{name: "sge not an array job", env: map[string]string{"SGE_TASK_ID": "undefined"}},
		{name: "two engines", env: map[string]string{"JOB_COMPLETION_INDEX": "0", "BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "2"}, count: 2, err: "two job-array engines"},
		{name: "-shard-count without an engine", count: 3, err: "no job-array index variable is set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			got, err := shardFromEnv(lookup, tt.count)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Index != tt.index || got.Count != tt.n {
				t.Fatalf("shard %d/%d, want %d/%d", got.Index, got.Count, tt.index, tt.n)
			}
		})
	}
}
