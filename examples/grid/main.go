// Command grid runs a grid of the workbench from Go, without the experiments command or its
// flags: two cells (the plain batch softmax and the logQ correction, Yi et al. eq. 3 and 4) on a
// small synthetic corpus, one seed each, then prints each run's test pairs and the share of them
// whose item it ranks in the top 10, from the results the workbench wrote.
//
//	go run ./examples/grid -out results/grid
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/workbench"
)

// config is the grid's config, as a file would hold it.
const config = `
seeds = [1]

[data]
source = "synthetic"
[data.synthetic]
items = 200
queries = 300
interactions = 4000

[model]
embedding_dim = 8
hidden = [16]

[train]
batch_size = 64
epochs = 2

[eval]
k = [10]
bootstrap = 50

[[ablation]]
key = "loss.variant"
values = ["plain", "logq"]
`

func main() {
	out := flag.String("out", "results/grid", "results folder")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "grid:", err)
		os.Exit(1)
	}
}

// run loads the grid with its results folder, runs it and prints its runs' Recall@10.
func run(out string) error {
	g, err := workbench.Parse("grid.toml", []byte(config), "out="+strconv.Quote(out))
	if err != nil {
		return err
	}
	if err := g.Do(context.Background(), workbench.Options{}); err != nil {
		return err
	}
	finished, err := g.Finished()
	if err != nil {
		return err
	}
	for _, f := range finished {
		for _, r := range f.Results {
			if r.Slice == metrics.SliceAll && r.Metric == metrics.MetricRecall && r.K == 10 && r.Tau == 0 {
				fmt.Printf("%s: %d test pairs, Recall@10 %.3f [%.3f, %.3f]\n", f.ID, r.Pairs, r.Value, r.Lo, r.Hi)
			}
		}
	}
	return nil
}
