package plots

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Save draws p at s.Width × s.Height inches and writes it to path + "." + format for each of
// s.Formats (PNG at s.DPI), in that order, each atomically: to a temporary file in the same
// directory, renamed into place once complete. path has no extension; its directory must
// exist. s's zero value works; use the Settings p was built with. Save returns the paths
// written; on error, the paths written before it, and an error naming the file.
func Save(p *plot.Plot, path string, s Settings) ([]string, error) {
	if p == nil {
		return nil, errors.New("plots: save: nil plot")
	}
	if err := s.Resolve(); err != nil {
		return nil, fmt.Errorf("plots: settings: %w", err)
	}
	if ext := filepath.Ext(path); ext != "" && isFormat(ext[1:]) {
		return nil, fmt.Errorf("plots: save %s: give the path without its extension; the formats add theirs", path)
	}
	var written []string
	for _, f := range s.Formats {
		name := path + "." + f
		if err := writeAtomic(name, canvas(p, f, s)); err != nil {
			return written, fmt.Errorf("plots: save %s: %w", name, err)
		}
		written = append(written, name)
	}
	return written, nil
}

// canvas draws p on a new canvas of format f (an allowed Settings.Formats entry), sized by s
// and with a blank margin of s.margin() around the plot.
func canvas(p *plot.Plot, f string, s Settings) vg.CanvasWriterTo {
	w, h := vg.Length(s.Width)*vg.Inch, vg.Length(s.Height)*vg.Inch
	var c vg.CanvasWriterTo
	switch f {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(s.DPI))}
	case "svg":
		c = vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(true))
	default: // pdf; vgpdf embeds fonts by default
		c = vgpdf.New(w, h)
	}
	m := s.margin()
	p.Draw(draw.Crop(draw.New(c), m, -m, m, -m))
	return c
}

// writeAtomic writes c to a temporary file next to name and renames it to name; on failure it
// removes the temporary file.
func writeAtomic(name string, c vg.CanvasWriterTo) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = c.WriteTo(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file private (0600); a figure is as readable as any output file.
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
