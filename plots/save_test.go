package plots

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"rsc.io/pdf"
)

// dirNames returns the sorted names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

func TestSaveFormats(t *testing.T) {
	p, err := GroupedBars(recallBars(), Labels{Title: "Wikipedia", Y: "Recall@10"}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "recall_at_10")
	s := Settings{Formats: []Format{"png", "svg", "pdf"}}
	paths, err := Save(p, base, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{base + ".png", base + ".svg", base + ".pdf"}; !slices.Equal(paths, want) {
		t.Errorf("Save returned %q, want %q", paths, want)
	}
	// Exactly the three files: no temporary file left behind.
	if got, want := dirNames(t, dir), []string{"recall_at_10.pdf", "recall_at_10.png", "recall_at_10.svg"}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
	for _, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", path, fi.Mode().Perm())
		}
	}

	// PNG: 3.5 in × 300 dpi = 1050 pixels wide, 2.6 in × 300 dpi = 780 high.
	checkPNGSize(t, paths[0], 1050, 780)

	// SVG: well-formed XML, 3.5 in = 252 pt wide, with the label as text.
	b, err := os.ReadFile(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	var root *xml.StartElement
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == nil {
				root = &tok
			}
		case xml.CharData:
			texts = append(texts, string(tok))
		}
	}
	if root == nil || root.Name.Local != "svg" {
		t.Fatalf("SVG root %v", root)
	}
	for _, a := range root.Attr {
		if a.Name.Local == "width" && a.Value != "252pt" {
			t.Errorf("SVG width %q, want 252pt", a.Value)
		}
	}
	if all := strings.Join(texts, " "); !strings.Contains(all, "Recall@10") || !strings.Contains(all, "Wikipedia") {
		t.Errorf("SVG text lacks the labels: %.200q", all)
	}

	// PDF: one page of 252 × 187.2 pt (2.6 in), with the labels as text.
	f, err := os.Open(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := pdf.NewReader(f, fi.Size())
	if err != nil {
		t.Fatalf("PDF does not parse: %v", err)
	}
	if r.NumPage() != 1 {
		t.Fatalf("PDF has %d pages", r.NumPage())
	}
	page := r.Page(1)
	box := page.V.Key("MediaBox") // inherited from the page tree when the page lacks one
	for v := page.V; box.IsNull() && !v.IsNull(); v = v.Key("Parent") {
		box = v.Key("MediaBox")
	}
	if w, h := box.Index(2).Float64()-box.Index(0).Float64(), box.Index(3).Float64()-box.Index(1).Float64(); w != 252 ||
		h < 187.19 || h > 187.21 {
		t.Errorf("PDF page %v × %v pt, want 252 × 187.2", w, h)
	}
	var sb strings.Builder
	for _, tx := range page.Content().Text {
		sb.WriteString(tx.S)
	}
	if all := sb.String(); !strings.Contains(all, "Recall@10") || !strings.Contains(all, "Wikipedia") {
		t.Errorf("PDF text lacks the labels: %.200q", all)
	}
}

// checkPNGSize decodes the PNG at path and checks its size in pixels.
func checkPNGSize(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s does not decode: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %d × %d pixels, want %d × %d", path, b.Dx(), b.Dy(), w, h)
	}
}

func TestSavePNGSize(t *testing.T) {
	// Pixels = inches × dpi, rounded.
	for _, tc := range []struct {
		s    Settings
		w, h int
	}{
		{Settings{Width: 2, Height: 1.5, DPI: 100, FontSize: 6}, 200, 150},
		{Settings{Width: 7, Height: 3, DPI: 120}, 840, 360},
		{Settings{Width: 3.33, Height: 2.5, DPI: 72}, 240, 180}, // 239.76 → 240
	} {
		p, err := Lines(tvSeries(), Labels{X: "training step", Y: "TV distance"}, LineOptions{}, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		paths, err := Save(p, filepath.Join(t.TempDir(), "tv"), tc.s)
		if err != nil {
			t.Fatal(err)
		}
		checkPNGSize(t, paths[0], tc.w, tc.h)
	}
}

func TestSaveErrors(t *testing.T) {
	p, err := GroupedBars(recallBars(), Labels{Y: "Recall@10"}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "dir", "fig")
	for _, tc := range []struct {
		name string
		p    func() (paths []string, err error)
		want string
	}{
		{"nil plot", func() ([]string, error) { return Save(nil, filepath.Join(dir, "fig"), Settings{}) }, "plots: save: nil plot"},
		{"extension", func() ([]string, error) { return Save(p, filepath.Join(dir, "fig.png"), Settings{}) },
			"give the path without its extension"},
		{"bad settings", func() ([]string, error) {
			return Save(p, filepath.Join(dir, "fig"), Settings{Formats: []Format{"gif"}})
		},
			`plots: settings: formats: unknown "gif"`},
		{"missing directory", func() ([]string, error) { return Save(p, missing, Settings{}) }, "plots: save " + missing + ".png: "},
	} {
		paths, err := tc.p()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
		if len(paths) != 0 {
			t.Errorf("%s: wrote %q", tc.name, paths)
		}
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("failed saves left %q", names)
	}
	// A dot in the name is not an extension unless it names a format.
	paths, err := Save(p, filepath.Join(dir, "recall_t=0.07"), Settings{})
	if err != nil || len(paths) != 1 || filepath.Base(paths[0]) != "recall_t=0.07.png" {
		t.Errorf("Save with a dotted name: %q, %v", paths, err)
	}
}

// TestSaveFailureCleansUp makes the rename of the second format fail (a directory holds its
// name) and checks that the first file is kept and reported, the error names the second, and
// no temporary file is left.
func TestSaveFailureCleansUp(t *testing.T) {
	p, err := GroupedBars(recallBars(), Labels{Y: "Recall@10"}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "fig.svg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fig.svg", "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "fig")
	paths, err := Save(p, base, Settings{Formats: []Format{"png", "svg", "pdf"}})
	if err == nil || !strings.Contains(err.Error(), "plots: save "+base+".svg: ") {
		t.Errorf("error %v, want one naming %s.svg", err, base)
	}
	if !slices.Equal(paths, []string{base + ".png"}) {
		t.Errorf("Save returned %q, want only the PNG", paths)
	}
	if got, want := dirNames(t, dir), []string{"fig.png", "fig.svg"}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
}

// TestConcurrent builds and saves figures from several goroutines, as parallel experiment
// runs may; run under -race.
func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			p, err := Lines(tvSeries(), Labels{X: "training step", Y: "TV distance"}, LineOptions{}, Settings{DPI: 72})
			if err == nil {
				_, err = Save(p, filepath.Join(dir, "tv"+string(rune('a'+i))), Settings{DPI: 72, Formats: []Format{"png", "svg"}})
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	if n := len(dirNames(t, dir)); n != 8 {
		t.Errorf("%d files, want 8", n)
	}
}
