// Package datasets loads retrieval datasets into one in-memory form: queries, items, (query,
// item) interactions with optional timestamp, day bucket and reward, a bag of categorical
// features per query and per item, a seeded train/test split (with an optional validation set)
// and, with timestamps, every user's training sequence.
//
// Sources (Settings.Source):
//
//   - wikilinks: a Wikipedia link graph in the Wikispeedia layout (articles.tsv, links.tsv,
//     categories.tsv; "#" lines are comments). Query = source page, item = destination page,
//     as in the Wikipedia link prediction of Yi et al., "Sampling-Bias-Corrected Neural
//     Modeling for Large Corpus Item Recommendations", RecSys 2019. A page has the same id and
//     the same features on both sides (one shared *Features, as the paper shares input
//     embeddings between the towers): "page_id" (the URL-encoded name), "title_ngram" (the
//     lower-case word unigrams and bigrams of the title, decoded with url.PathUnescape and "_"
//     read as a space; words are runs of letters and digits) and "category" (every
//     dot-separated prefix of every category path: subject, subject.Science,
//     subject.Science.Physics). The SNAP Wikispeedia graph (West & Leskovec, WWW 2012; West,
//     Pineau & Precup, IJCAI 2009; 4,604 pages, 119,882 links) is embedded in the package and
//     loads when Path is empty; see wikispeedia/PROVENANCE.md. A larger edge list in the same
//     columns is read streaming; without articles.tsv the pages are the names seen in
//     links.tsv and categories.tsv. Links are deduplicated and sorted by (source, target) id;
//     self-links are dropped unless kept.
//   - xmc: multi-label data, in Mulan's ARFF layout (e.g. Delicious: the label attributes are
//     named in the companion XML label file, or are the last xmc.labels attributes) or in the
//     Extreme Classification Repository text layout ("N F L" header, "l1,l2 f:v f:v" rows).
//     Following Rawat et al., "Disentangling Sampling and Labeling Bias for Learning in
//     Large-Output Spaces", ICML 2021, section 5.2, an example with labels {y1..yt} gives the t
//     pairs (x, y1)..(x, yt): each example is a query whose "feature" field holds its sparse
//     input (weights = values), each label an item with field "label_id". Both numeric fields
//     use the ids of the file (no hashing). The split is the files' own train/test split.
//   - interactions: a CSV/TSV of user, item, timestamp and rating columns (by header name or
//     index), plus optional feature files whose columns become fields (MovieLens: movies.csv
//     genres "A|B|C"). Ratings map to rewards (rating/scale, threshold, raw or one).
//   - synthetic: Zipf-popular items with planted query-item clusters and optional popularity
//     drift between days (see SyntheticSettings), generated from the seed.
//
// Hashed vocabularies: a field built from string tokens gives every token held by at least
// Settings.MinCount entities its own id (tokens in byte order), and hashes the rest, and any
// token not seen at load time (Field.Lookup), into Settings.OOVBuckets out-of-vocabulary
// buckets by FNV-1a, like the hash buckets Yi et al. give out-of-vocabulary ids. Id fields
// (page_id, user_id, item_id) keep every token.
//
// Timestamps give day buckets: UTC days since the day of the first timestamp
// (Interaction.Day, Dataset.Days, Dataset.TrainDays) for sequential training.
//
// Validation: split kinds leave_last_out and temporal can set a validation set apart
// (SplitSettings.Validation, Dataset.Valid) that training never sees: each user's second-to-last
// pair, as in SASRec's protocol (Kang & McAuley, "Self-Attentive Sequential Recommendation", ICDM
// 2018), for every user with three pairs or for a seeded subset of them (as Petrov & Macdonald,
// gSASRec, RecSys 2023, and Khrylchenko et al., "Correcting the LogQ Correction", 2025, use 512
// validation users), or the pairs just before temporal's test window. Without it every split
// is the one it was before validation sets existed.
//
// Sequences: with timestamps, a split asked for it (LoadWith, Options.Sequences; Load builds no
// index, so that a run without a history-reading tower pays nothing for it) indexes every user's
// (query's) training items in time order, ties in the source's order (Dataset.Sequences): the context of an event for a query
// tower that reads the user's past items (Yi et al. section 5; SASRec). The history of any pair
// (Dataset.History) is its user's training items before it, most recent last, the last L of
// them: a validation or test item is in no history, and a user whose pairs are all held out has
// an empty one. The index is a flat item array with per-user offsets and one int32 per pair (8
// bytes per training pair, 4 per held-out pair, 4 per user), never a list per pair; histories are
// views into it. Dataset.Windows cuts the sequences into the windows of training at every
// position (rules WindowingLast, SASRec's, and WindowingAll), each an input sequence and its
// next-item targets left-padded with Padding (Windows.Fill, PadLeft). docs/sequences.md defines
// all of these.
//
// Files may be gzip-compressed: a file is gunzipped when it starts with the gzip magic bytes,
// and "name.gz" is read when "name" does not exist. The repository ships Delicious and MovieLens
// ml-latest-small in data/ with their provenance and licence files.
//
// Bad input: a malformed line is a *ParseError naming file:line and what was expected. A CSV/TSV
// row must have exactly the header's number of columns (without a header, the first row's): a
// row with an extra column, or a last row cut short, is an error. An unterminated quoted field
// is reported at the line where it opens. A file's last line without a line break may be a
// complete line or a file cut mid-line (a copy stopped short); every loader (CSV/TSV, wikilinks
// TSV, XMC text and ARFF) keeps it only when its structure says it is complete: the file's
// number of columns, values that parse, a last value at least as long as the shortest last
// value of the file's other rows and not a number ending in '.', 'e' or a sign, and (links) a
// target page that articles.tsv lists (a sparse ARFF row marks its own end with "}"). A kept
// line is counted in Report.Unterminated and shown in the load line (a cut that leaves a
// plausible value cannot be told from a complete line); any other is an error naming
// file:line, e.g. a timestamp 1217676 where the file's others have ten digits. A timestamp
// (interactions, unix seconds) outside the years 1000 to 2999 is an error naming file:line and
// the unit it would be in range in (a file in milliseconds would else have day buckets 1000
// times too short). A reward (interactions) weighs its pair's loss (Yi et al. eq. 4, whose
// rewards are in [0, 1]): a rating that maps to a negative reward is an error, since it would
// reverse the pair's gradient; rewards above 1 are kept as weights.
// Records that are well formed but unusable are counted in Dataset.Report with up to five
// examples each, and dropped or kept as each Report field documents: references to unknown
// pages (dropped), self-links (dropped unless wikilinks.keep_self_links), repeated links and
// repeated labels or features of an example (dropped), repeated (user, item) rows (kept unless
// interactions.dedupe), XMC examples without labels (no pairs), ratings under the threshold
// (dropped). An empty train, validation (when asked for) or test set is an error. No input makes a loader panic (each parser
// has a fuzz test). Report.Summary is the one-line account that the workbench prints when it
// loads a dataset.
//
// Adding a source: a loader func(Settings) (*Unsplit, error) that reads the files (through
// splitPath and files.open, whose ParseErrors name file:line), builds each side's fields
// (IDField, or newTokenBags for hashed tokens), counts what it drops in a Report and returns an
// [Unsplit]; its name in the sources list of settings.go and its case in the dispatch of load.go
// (a name without a case is an error); fixtures in testdata/ and a fuzz target of its parser.
// TestAddingADataset follows these steps with a small loader. A dataset built in Go needs none
// of this: fill an Unsplit and call its Split (see the example).
package datasets
