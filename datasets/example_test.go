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

// A dataset built in Go rather than read by a loader: the Unsplit form every loader returns,
// split by the same code as the loaded ones.
func ExampleUnsplit_Split() {
	const queries, items = 3, 4
	u := &datasets.Unsplit{
		Dataset: &datasets.Dataset{
			Name:    "by hand",
			Queries: queries, Items: items,
			QueryFeatures: &datasets.Features{Fields: []datasets.Field{datasets.IDField("query_id", queries)}},
			ItemFeatures:  &datasets.Features{Fields: []datasets.Field{datasets.IDField("item_id", items)}},
			Report:        datasets.Report{Source: "by hand", Records: 6},
		},
		Pairs: []datasets.Interaction{
			{Query: 0, Item: 0, Reward: 1}, {Query: 0, Item: 1, Reward: 1}, {Query: 1, Item: 1, Reward: 0.5},
			{Query: 1, Item: 2, Reward: 1}, {Query: 2, Item: 3, Reward: 1}, {Query: 2, Item: 0, Reward: 1},
		},
	}
	d, err := u.Split(datasets.SplitSettings{Kind: "query", TestFraction: 0.34}, 1)
	if err != nil {
		log.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Report.Summary())
	// Output:
	// by hand: 6 records read, 6 pairs kept (4 train, 2 test)
}

// ListInputs names the files Load reads for the settings, never the other files beside them:
// what identifies the data for the workbench's results folders.
func ExampleListInputs() {
	in, err := datasets.ListInputs(datasets.Settings{Source: datasets.SourceXMC, Path: "testdata/arff/mini-train.arff"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.Dir, in.Names)
	// Output: testdata/arff [mini.xml mini-train.arff mini-test.arff]
}
