package datasets_test

import (
	"fmt"
	"log"

	"github.com/samplingbias/workbench/datasets"
)

// The zero Settings load the Wikispeedia link graph embedded in the module, with a seeded
// random 90/10 split of its links.
func Example() {
	d, err := datasets.Load(datasets.Settings{}, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Name, d.Queries, "pages")
	fmt.Println(d.Report.Records, "links read,", d.Report.SelfLinks, "self-links dropped")
	fmt.Println(len(d.Train), "train and", len(d.Test), "test pairs")
	for _, f := range d.ItemFeatures.Fields {
		fmt.Println(f.Name, f.Known, "known tokens +", f.Vocab-f.Known, "buckets")
	}
	// Output:
	// wikispeedia 4604 pages
	// 119882 links read, 110 self-links dropped
	// 107795 train and 11977 test pairs
	// page_id 4604 known tokens + 1000 buckets
	// title_ngram 1508 known tokens + 1000 buckets
	// category 146 known tokens + 1000 buckets
}

// A synthetic dataset with popularity drift, cut into days for sequential training.
func ExampleDataset_TrainDays() {
	s := datasets.Settings{
		Source:    "synthetic",
		Split:     datasets.SplitSettings{Kind: "temporal", TestDays: 1},
		Synthetic: datasets.SyntheticSettings{Items: 100, Queries: 50, Interactions: 1000, Days: 5, Drift: 0.2},
	}
	d, err := datasets.Load(s, 42)
	if err != nil {
		log.Fatal(err)
	}
	for day, pairs := range d.TrainDays() {
		fmt.Println("day", day, len(pairs), "train pairs")
	}
	fmt.Println(len(d.Test), "test pairs on day", d.Test[0].Day)
	// Output:
	// day 0 200 train pairs
	// day 1 200 train pairs
	// day 2 200 train pairs
	// day 3 200 train pairs
	// day 4 0 train pairs
	// 200 test pairs on day 4
}
