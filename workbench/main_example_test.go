package workbench_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/samplingbias/workbench/workbench"
)

// The smoke config run from Go code: four short training runs (two loss variants × two seeds)
// on synthetic data, written to a temporary folder, then a line of the summary it wrote. The line
// shown, the slices' sizes, depends only on the seeded data; the metrics below it depend on the
// processor's floating-point kernels, so an example does not print them.
func ExampleMain() {
	out, err := os.MkdirTemp("", "smoke")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(out)
	// Progress lines carry timings: they go to io.Discard here.
	if err := workbench.Main([]string{"-config", "../configs/smoke.toml", "-out", out}, io.Discard, os.Stderr); err != nil {
		fmt.Println(err)
		return
	}
	f, err := os.Open(filepath.Join(out, "summary.md"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "Slice sizes") {
			fmt.Println(sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Slice sizes (items in the corpus, test pairs): head 100 / 643; torso 100 / 103; tail 100 / 54; all 300 / 800;
}

// A grid loaded from Go, with an override as -set gives it: its runs in order, each with its
// resolved settings (the smoke config's axis over loss.variant, at one seed).
func ExampleLoad() {
	g, err := workbench.Load("../configs/smoke.toml", "seeds=[1]", "loss.temperature=0.2")
	if err != nil {
		fmt.Println(err)
		return
	}
	runs, err := g.Runs()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range runs {
		fmt.Println(r.ID, r.Config.Loss.Variant, r.Config.Loss.Temperature, r.Config.Sampler.Kind)
	}
	fmt.Println(g.Out())
	// Output:
	// variant=plain,seed=1 plain 0.2 in_batch
	// variant=logq,seed=1 logq 0.2 in_batch
	// results/smoke
}
