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
	// by hand: 6 records read, 6 pairs kept (4 train, 2 test, 1 with a cold item, 2 with a cold query)
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

// A user's history: the training items before a pair, most recent last. With leave_last_out and
// validation a user's last rating is its test pair and the one before its validation pair;
// neither is in any history (MovieLens ml-latest-small, shipped in the repository; names are
// movieIds).
func ExampleDataset_History() {
	d, err := datasets.LoadWith(datasets.Settings{Source: "interactions", Path: "../data/movielens-latest-small",
		Split: datasets.SplitSettings{Kind: "leave_last_out", Validation: true}}, 1, datasets.Options{Sequences: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Report.Summary())
	const user = 0
	for _, p := range []datasets.Part{datasets.PartTrain, datasets.PartValid, datasets.PartTest} {
		for i, x := range d.Pairs(p) {
			if x.Query != user {
				continue
			}
			var last []string
			for _, it := range d.History(p, i, 3) {
				last = append(last, d.ItemNames[it])
			}
			fmt.Printf("%s: user %s rates %s after %d training items, the last 3 %v\n",
				p, d.QueryNames[user], d.ItemNames[x.Item], len(d.History(p, i, 1000)), last)
			break // the user's first pair of the part
		}
	}
	// Output:
	// interactions: 100836 records read, 100836 pairs kept (99616 train, 610 validation, 610 test, 24 with a cold item)
	// train: user 1 rates 804 after 0 training items, the last 3 []
	// validation: user 1 rates 2012 after 230 training items, the last 3 [1445 553 2478]
	// test: user 1 rates 2492 after 230 training items, the last 3 [1445 553 2478]
}

// Training at every position: each window's targets are consecutive training items of one
// user, each input the item just before its target, left-padded (Padding, −1) to L.
func ExampleDataset_Windows() {
	d, err := datasets.LoadWith(datasets.Settings{Source: "interactions", Path: "../data/movielens-latest-small",
		Split: datasets.SplitSettings{Kind: "leave_last_out"}}, 1, datasets.Options{Sequences: true})
	if err != nil {
		log.Fatal(err)
	}
	const l = 4
	inputs, targets := make([]int32, l), make([]int32, l)
	for _, rule := range []datasets.Windowing{datasets.WindowingLast, datasets.WindowingAll} {
		w, err := d.Windows(l, rule)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rule, len(w.List), "windows")
		for k, win := range w.List[:3] { // item ids; Padding is −1
			n := w.Fill(k, inputs, targets, nil)
			fmt.Printf("  user %s positions %d-%d: %d targets %v, inputs %v\n", d.QueryNames[win.Query], win.Start, win.End-1, n, targets, inputs)
		}
	}
	// Output:
	// last 610 windows
	//   user 1 positions 227-230: 4 targets [95 31 160 119], inputs [9 95 31 160]
	//   user 2 positions 24-27: 4 targets [248 233 257 255], inputs [246 248 233 257]
	//   user 3 positions 34-37: 4 targets [277 128 28 279], inputs [261 277 128 28]
	// all 25133 windows
	//   user 1 positions 1-2: 2 targets [-1 -1 73 120], inputs [-1 -1 43 73]
	//   user 1 positions 3-6: 4 targets [171 183 219 220], inputs [120 171 183 219]
	//   user 1 positions 7-10: 4 targets [227 6 24 184], inputs [220 227 6 24]
}
