package models

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/memstat"
	"github.com/samplingbias/workbench/losses"
)

// TestSaveLoadStreams saves and loads a model of 200,000 embedding rows (about 13 MB of
// parameters) and checks that neither allocates more than a tenth of the parameters' bytes:
// model files are streamed, not built in memory (gob held the whole payload, twice its size,
// when saving, and the file and a decoded copy when loading). The loaded model equals the saved
// one in every parameter.
func TestSaveLoadStreams(t *testing.T) {
	ds := idDataset(100_000, 100_000, 1000, 3)
	s := Settings{EmbeddingDim: 16, Hidden: []int{8}}
	m := must(New(s, ds, tensor.Float32, 1))
	var params int64
	for _, p := range m.params() {
		params += 4 * int64(p.size())
	}
	if params < 12e6 {
		t.Fatalf("the model holds %d bytes of parameters, too few to measure", params)
	}
	path := filepath.Join(t.TempDir(), "model.bin")
	allocated := func(f func() error) int64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := f(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return int64(after.TotalAlloc - before.TotalAlloc)
	}
	if a := allocated(func() error { return m.Save(path) }); a > params/10 {
		t.Errorf("Save allocated %d bytes for %d bytes of parameters", a, params)
	}
	m2 := must(New(s, ds, tensor.Float32, 2))
	if a := allocated(func() error { return m2.Load(path) }); a > params/10 {
		t.Errorf("Load allocated %d bytes for %d bytes of parameters", a, params)
	}
	if st, err := os.Stat(path); err != nil || st.Size() < params || st.Size() > params+1<<20 {
		t.Errorf("file of %v bytes for %d bytes of parameters (%v)", st.Size(), params, err)
	}
	for i, p := range m.params() {
		if !slices.Equal(values[float32](p), values[float32](m2.params()[i])) {
			t.Fatalf("parameter %s differs after loading", p.name)
		}
	}
}

// TestModelFileRefused: files of an earlier version, truncated files and files whose header
// describes arrays the file does not hold (checksummed correctly) are errors naming the file.
func TestModelFileRefused(t *testing.T) {
	ds, s := idDataset(20, 30, 100, 1), Settings{EmbeddingDim: 4, Hidden: []int{3}}
	m, dir := must(New(s, ds, tensor.Float32, 1)), t.TempDir()
	good := saveBytes(t, m, filepath.Join(dir, "model.bin"))
	short := m.saved()
	short.Params = short.Params[:len(short.Params)-1]
	tests := []struct {
		name  string
		write func(string) error
		want  string
	}{
		{"version 2", func(p string) error { return os.WriteFile(p, append([]byte("SBWBmod2"), good[8:]...), 0o644) },
			`not a model file of this version (written in format "SBWBmod2", this version reads "SBWBmod4")`},
		{"truncated", func(p string) error { return os.WriteFile(p, good[:len(good)-5], 0o644) }, "corrupt model file"},
		{"magic only", func(p string) error { return os.WriteFile(p, good[:8], 0o644) }, "corrupt model file: 8 bytes, too short"},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o644) }, "not a model file"},
		{"arrays missing", func(p string) error { return writeChecksummed(p, modelMagic, short, short.values()) },
			"parameter arrays, the model has"},
		{"arrays short", func(p string) error {
			return writeChecksummed(p, modelMagic, m.saved(), short.values())
		}, "corrupt model file: the header describes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := tt.write(p); err != nil {
				t.Fatal(err)
			}
			target := must(New(s, ds, tensor.Float32, 2))
			before := target.saved()
			err := target.Load(p)
			if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			for i, sp := range target.saved().Params {
				if !slices.Equal(sp.data.([]float32), before.Params[i].data.([]float32)) {
					t.Fatalf("a failed load changed %s", sp.Name)
				}
			}
		})
	}
}

// saveBytes saves m to path and returns the file's contents.
func saveBytes(t *testing.T, m *Model, path string) []byte {
	t.Helper()
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return must(os.ReadFile(path))
}

// changingFile is a file whose byte at flip changes once the whole file has been read once, as
// a file rewritten in place between the two passes of reading.
type changingFile struct {
	b    []byte
	read int
	flip int
}

func (f *changingFile) ReadAt(p []byte, off int64) (int, error) {
	if f.read >= len(f.b) && f.flip >= 0 {
		f.b[f.flip] ^= 1
		f.flip = -1
	}
	n := copy(p, f.b[off:])
	f.read += n
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestModelFileChangedWhileRead: the second pass checksums what it reads again, so a file that
// changes after the checksum was verified is an error naming the file, not a silently different
// model.
func TestModelFileChangedWhileRead(t *testing.T) {
	m := must(New(Settings{EmbeddingDim: 4, Hidden: []int{3}}, idDataset(20, 30, 100, 1), tensor.Float32, 1))
	good := saveBytes(t, m, filepath.Join(t.TempDir(), "model.bin"))
	for _, flip := range []int{-1, len(good) - trailerSize - 1} { // none; the last array's last byte
		var sm savedModel
		f := &changingFile{b: slices.Clone(good), flip: flip}
		err := decodeFrom("model.bin", f, int64(len(good)), modelMagic, "model", &sm, sm.arrays)
		switch {
		case flip < 0 && err != nil:
			t.Errorf("unchanged file: %v", err)
		case flip >= 0 && (err == nil || !strings.HasPrefix(err.Error(), "model.bin: the model file changed while it was read")):
			t.Errorf("changed file: error %v", err)
		}
	}
}

// TestTrainReleasesOptimiserState: once Train returns, Adam's state (two copies of every table)
// is no longer on the heap, so that evaluation does not hold it beside the model: the live heap
// after training grows by less than half of that state.
func TestTrainReleasesOptimiserState(t *testing.T) {
	ds := idDataset(200_000, 200_000, 2048, 3)
	m := must(New(Settings{EmbeddingDim: 32, Hidden: []int{8}}, ds, tensor.Float32, 1))
	var params int64
	for _, p := range m.params() {
		params += 4 * int64(p.size())
	}
	before := memstat.Live()
	ls := losses.Settings{Variant: losses.VariantPlain}
	ts := TrainSettings{BatchSize: 256, Steps: 2, Optimizer: OptimizerAdam}
	if _, err := Train(context.Background(), m, ds, newCountEstimator(ds, ts.BatchSize), ls, samplerOf(ls), ts, 1, io.Discard); err != nil {
		t.Fatal(err)
	}
	grown := int64(memstat.Live() - before)
	runtime.KeepAlive(m)
	if state := 2 * params; grown > state/2 {
		t.Errorf("the heap grew by %d bytes in training and stayed so; Adam's state is %d", grown, state)
	}
}
