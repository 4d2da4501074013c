package plots

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/samplingbias/workbench/internal/atomicfile"
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
		name := path + "." + string(f)
		c := canvas(p, f, s)
		if err := atomicfile.Write(name, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return written, fmt.Errorf("plots: save %s: %w", name, err)
		}
		written = append(written, name)
	}
	return written, nil
}

// canvas draws p on a new canvas of format f (an allowed Settings.Formats entry), sized by s
// and with a blank margin of s.margin() around the plot.
func canvas(p *plot.Plot, f Format, s Settings) vg.CanvasWriterTo {
	w, h := vg.Length(s.Width)*vg.Inch, vg.Length(s.Height)*vg.Inch
	var c vg.CanvasWriterTo
	switch f {
	case FormatPNG:
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(s.DPI))}
	case FormatSVG:
		c = vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(true))
	default: // pdf; vgpdf embeds fonts by default
		c = vgpdf.New(w, h)
	}
	m := s.margin()
	p.Draw(draw.Crop(draw.New(c), m, -m, m, -m))
	return c
}
