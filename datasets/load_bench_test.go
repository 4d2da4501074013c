package datasets

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/samplingbias/workbench/internal/memstat"
)

// writeEdgeList writes lines "query<TAB>item" to path: queries and items drawn from ids ids
// each, items Zipf-distributed (exponent 1.1), from a seeded source. With timed, every line has
// a third column, a timestamp: the line's number over 4, so that lines tie in time four by four.
func writeEdgeList(path string, lines, ids int, timed bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, uint64(lines)))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(ids-1))
	for i := range lines {
		fmt.Fprintf(w, "q%d\ti%d", rng.IntN(ids), zipf.Uint64())
		if timed {
			fmt.Fprintf(w, "\t%d", i/4)
		}
		fmt.Fprintln(w)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// edgeListSettings reads path as an edge list without header, time or rating, split at random.
func edgeListSettings(path string) Settings {
	return Settings{Source: "interactions", Path: path, Interactions: InteractionsSettings{
		Delimiter: "tab", NoHeader: true, User: "0", Item: "1", Time: "none", Rating: "none"}}
}

// loadRetained loads s with o and returns the dataset and the heap it holds (bytes live after a
// GC, over those before the load).
func loadRetained(s Settings, o Options) (*Dataset, uint64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ds, err := LoadWith(s, 1, o)
	if err != nil {
		return nil, 0, err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ds)
	return ds, after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), nil
}

// BenchmarkLoadEdgeList measures the cost growth of loading a streamed edge list (README,
// "Scale"): 1M and 10M lines generated into b.TempDir() over 100k query and item ids, and 10M
// lines over 1M ids, reporting ns and retained heap bytes per line. Loading is linear in the
// interactions when both stay flat at a fixed number of ids; more ids cost more per line (the id
// tables outgrow the caches).
func BenchmarkLoadEdgeList(b *testing.B) {
	for _, c := range []struct{ lines, ids int }{{1_000_000, 100_000}, {10_000_000, 100_000}, {10_000_000, 1_000_000}} {
		b.Run(fmt.Sprintf("lines=%d/ids=%d", c.lines, c.ids), func(b *testing.B) {
			lines := c.lines
			path := filepath.Join(b.TempDir(), "edges.tsv")
			if err := writeEdgeList(path, lines, c.ids, false); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var retained uint64
			for range b.N {
				_, r, err := loadRetained(edgeListSettings(path), Options{})
				if err != nil {
					b.Fatal(err)
				}
				retained = r
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
			b.ReportMetric(float64(retained)/float64(lines), "B/line")
		})
	}
}

// TestLoadMemory bounds the memory a loaded edge list holds (README, "Scale"): an Interaction is
// 24 bytes (two int32 ids, an int64 time, an int32 day and a float32 reward), and the slices'
// growth may leave a quarter more, so at most 30 bytes per interaction, plus at most 64 bytes per
// query or item (its name and its share of the id tables); the load's own buffers and id maps are
// garbage once it returns. 100,000 lines measured 34 bytes per line in all (24 + 10 for names).
func TestLoadMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "edges.tsv")
	const lines = 100_000
	if err := writeEdgeList(path, lines, lines/10, false); err != nil {
		t.Fatal(err)
	}
	ds, retained, err := loadRetained(edgeListSettings(path), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ds.Train) + len(ds.Test); got != lines {
		t.Fatalf("%d interactions, want %d", got, lines)
	}
	if bound := uint64(30*lines + 64*(ds.Queries+ds.Items)); retained > bound {
		t.Errorf("%d bytes held for %d interactions, %d queries and %d items; want at most %d",
			retained, lines, ds.Queries, ds.Items, bound)
	}
}

// TestSequencesMemory bounds the memory the sequence index adds to a loaded timed edge list of
// 100,000 lines over 10,000 queries, split at random 90/10 (README, "Scale"): Dataset.Sequences
// holds 4 bytes per training pair (Items), 4 per pair of every part (Before) and 4 per query
// (Offsets), 8 bytes per pair here (4·0.9 + 4 + 4·10,000/100,000), with 1% for the allocator;
// the windows of training at every position (Dataset.Windows) add 4 bytes per training pair and
// 12 per window. Measured: 8.03 bytes per pair for the index, 4.83 per pair for the windows of
// at most 200 targets (WindowingAll; 9,992 windows). A load that does not ask for the index
// (Load, Options.Sequences false) builds none.
func TestSequencesMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "edges.tsv")
	const lines = 100_000
	if err := writeEdgeList(path, lines, lines/10, true); err != nil {
		t.Fatal(err)
	}
	s := edgeListSettings(path)
	s.Interactions.Time = "2"
	if ds, err := Load(s, 1); err != nil || ds.Sequences != nil {
		t.Fatalf("Load without the index: sequences %v, error %v", ds != nil && ds.Sequences != nil, err)
	}
	ds, _, err := loadRetained(s, Options{Sequences: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Sequences == nil || len(ds.Train)+len(ds.Test) != lines {
		t.Fatalf("%d pairs, sequences %v", len(ds.Train)+len(ds.Test), ds.Sequences != nil)
	}
	// The windows first, while the index they read is there. Another goroutine's allocations can
	// only add to a measurement, so the least of three is the windows' own.
	var w *Windows
	windows := math.Inf(1)
	for range 3 {
		w = nil
		before := memstat.Live()
		var err error
		if w, err = ds.Windows(200, WindowingAll); err != nil {
			t.Fatal(err)
		}
		windows = math.Min(windows, math.Max(memstat.Live()-before, 0))
	}
	if bound := 1.01 * float64(4*len(ds.Train)+12*len(w.List)); windows > bound {
		t.Errorf("the windows hold %.0f bytes for %d training pairs and %d windows; want at most %.0f", windows, len(ds.Train), len(w.List), bound)
	}
	nWindows := len(w.List)
	w = nil
	with, counted := memstat.Live(), ds.Bytes()
	ds.Sequences = nil
	index := math.Max(with-memstat.Live(), 0)
	if bound := 1.01 * float64(4*len(ds.Train)+4*lines+4*(ds.Queries+1)); index > bound {
		t.Errorf("the sequences hold %.0f bytes for %d pairs (%d train) and %d queries; want at most %.0f", index, lines, len(ds.Train), ds.Queries, bound)
	}
	// Dataset.Bytes counts the index as it is held, to the allocator's rounding.
	if d := counted - ds.Bytes(); math.Abs(d-index) > 0.01*index {
		t.Errorf("Dataset.Bytes counts %.0f bytes for the sequences, which hold %.0f", d, index)
	}
	runtime.KeepAlive(ds)
	t.Logf("sequences: %.2f bytes per pair; windows: %.2f bytes per pair (%d windows)", index/lines, windows/lines, nWindows)
}
