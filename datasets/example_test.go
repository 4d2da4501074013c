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

// A user's history: the training items before a pair, most recent last. With leave_last_out and
// validation the user's last pair is its test pair, the one before its validation pair, and
// neither is in any history.
func ExampleDataset_History() {
	const users, items = 2, 6
	u := &datasets.Unsplit{
		Dataset: &datasets.Dataset{
			Name:    "histories",
			Queries: users, Items: items,
			QueryFeatures: &datasets.Features{Fields: []datasets.Field{datasets.IDField("user_id", users)}},
			ItemFeatures:  &datasets.Features{Fields: []datasets.Field{datasets.IDField("item_id", items)}},
			Report:        datasets.Report{Source: "by hand", Records: 7},
		},
		Pairs: []datasets.Interaction{
			{Query: 0, Item: 3, Time: 100, Reward: 1}, {Query: 0, Item: 1, Time: 200, Reward: 1},
			{Query: 0, Item: 4, Time: 300, Reward: 1}, {Query: 0, Item: 0, Time: 400, Reward: 1},
			{Query: 0, Item: 5, Time: 500, Reward: 1}, {Query: 1, Item: 2, Time: 150, Reward: 1},
			{Query: 1, Item: 3, Time: 250, Reward: 1},
		},
		Timed: true,
	}
	d, err := u.Split(datasets.SplitSettings{Kind: "leave_last_out", Validation: true}, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Report.Summary())
	for _, p := range []datasets.Part{datasets.PartTrain, datasets.PartValid, datasets.PartTest} {
		for i, x := range d.Pairs(p) {
			fmt.Printf("%s user %d item %d: history %v, last 2 %v\n", p, x.Query, x.Item, d.History(p, i, 10), d.History(p, i, 2))
		}
	}
	// Output:
	// by hand: 7 records read, 7 pairs kept (4 train, 1 validation, 2 test)
	// train user 0 item 3: history [], last 2 []
	// train user 1 item 2: history [], last 2 []
	// train user 0 item 1: history [3], last 2 [3]
	// train user 0 item 4: history [3 1], last 2 [3 1]
	// validation user 0 item 0: history [3 1 4], last 2 [1 4]
	// test user 1 item 3: history [2], last 2 [2]
	// test user 0 item 5: history [3 1 4], last 2 [1 4]
}

// Training at every position: each window's targets are consecutive training items of one
// user, each input the item just before its target, left-padded to L.
func ExampleDataset_Windows() {
	const users, items = 2, 8
	u := &datasets.Unsplit{
		Dataset: &datasets.Dataset{
			Name:    "windows",
			Queries: users, Items: items,
			QueryFeatures: &datasets.Features{Fields: []datasets.Field{datasets.IDField("user_id", users)}},
			ItemFeatures:  &datasets.Features{Fields: []datasets.Field{datasets.IDField("item_id", items)}},
			Report:        datasets.Report{Source: "by hand", Records: 10},
		},
		Timed: true,
	}
	for i, it := range []int32{7, 6, 5, 4, 3, 2, 1} { // user 0: 7 items, the last its test pair
		u.Pairs = append(u.Pairs, datasets.Interaction{Query: 0, Item: it, Time: int64(i), Reward: 1})
	}
	for i, it := range []int32{0, 1, 2} { // user 1: 3 items, the last its test pair
		u.Pairs = append(u.Pairs, datasets.Interaction{Query: 1, Item: it, Time: int64(i), Reward: 1})
	}
	d, err := u.Split(datasets.SplitSettings{Kind: "leave_last_out"}, 1)
	if err != nil {
		log.Fatal(err)
	}
	const l = 3
	for _, rule := range []datasets.Windowing{datasets.WindowingLast, datasets.WindowingAll} {
		w, err := d.Windows(l, rule)
		if err != nil {
			log.Fatal(err)
		}
		inputs, targets := make([]int32, l), make([]int32, l)
		for k, win := range w.List {
			w.Fill(k, inputs, targets, nil)
			fmt.Printf("%s: user %d inputs %v targets %v\n", rule, win.Query, inputs, targets)
		}
	}
	// Output:
	// last: user 0 inputs [5 4 3] targets [4 3 2]
	// last: user 1 inputs [-1 -1 0] targets [-1 -1 1]
	// all: user 0 inputs [-1 7 6] targets [-1 6 5]
	// all: user 0 inputs [5 4 3] targets [4 3 2]
	// all: user 1 inputs [-1 -1 0] targets [-1 -1 1]
}
