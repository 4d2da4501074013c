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
