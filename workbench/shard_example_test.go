package workbench_test

import (
	"fmt"
	"os"

	"github.com/samplingbias/workbench/workbench"
)

// The runs task 1 of a Slurm job array submitted with --array=0-1 would train: the grid's runs at
// odd positions (-list trains nothing).
func ExampleMainEnv() {
	slurm := map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "2"}
	lookup := func(k string) (string, bool) { v, ok := slurm[k]; return v, ok }
	if err := workbench.MainEnv([]string{"-config", "../configs/smoke.toml", "-list"}, os.Stdout, os.Stderr, lookup); err != nil {
		fmt.Println(err)
	}
	// Output:
	// variant=plain,seed=2
	// variant=logq,seed=2
	// # 2 of the grid's 4 runs in shard 1/2 (from Slurm SLURM_ARRAY_TASK_ID=1)
}
