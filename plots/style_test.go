package plots

import (
	"fmt"
	"image/color"
	"math"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestColor(t *testing.T) {
	// The Okabe–Ito palette as printed in Wong 2011 (Nature Methods 8:441, figure 2), in RGB,
	// in the order this package assigns it.
	want := []string{
		"#0072B2", // blue (0, 114, 178)
		"#D55E00", // vermillion (213, 94, 0)
		"#009E73", // bluish green (0, 158, 115)
		"#E69F00", // orange (230, 159, 0)
		"#CC79A7", // reddish purple (204, 121, 167)
		"#56B4E9", // sky blue (86, 180, 233)
		"#000000", // black
		"#F0E442", // yellow (240, 228, 66)
	}
	hex := func(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }
	for i, w := range want {
		if c := Color(i); hex(c) != w || c.A != 0xFF {
			t.Errorf("Color(%d) = %v, want %s", i, c, w)
		}
		if Color(i+numColors) != Color(i) {
			t.Errorf("Color(%d) != Color(%d)", i+numColors, i)
		}
	}
}

func TestSeriesStylesDistinct(t *testing.T) {
	// Dash patterns, hatchings and markers are distinct within their period, and series i and
	// i+8 (same colour) differ in dash pattern and hatching.
	for i := range numPatterns {
		for j := range i {
			if reflect.DeepEqual(Dashes(i), Dashes(j)) {
				t.Errorf("Dashes(%d) = Dashes(%d)", i, j)
			}
			if slices.Equal(hatchAngles(i), hatchAngles(j)) {
				t.Errorf("hatchAngles(%d) = hatchAngles(%d)", i, j)
			}
		}
	}
	for i := range numMarkers {
		for j := range i {
			if reflect.TypeOf(Marker(i)) == reflect.TypeOf(Marker(j)) {
				t.Errorf("Marker(%d) and Marker(%d) are both %T", i, j, Marker(i))
			}
		}
	}
	// (colour, dash pattern) pairs are unique for the first DistinctSeries = 8·7 series.
	seen := make(map[string]int)
	for i := range DistinctSeries {
		k := fmt.Sprint(Color(i), Dashes(i), hatchAngles(i))
		if j, ok := seen[k]; ok {
			t.Fatalf("series %d and %d are drawn alike", j, i)
		}
		seen[k] = i
	}
	if !reflect.DeepEqual(Dashes(3), Dashes(3+numPatterns)) {
		t.Error("dash patterns do not repeat with period 7")
	}
	// A caller modifying a returned pattern does not change later ones.
	d := Dashes(1)
	d[0] = 100
	if Dashes(1)[0] == vg.Length(100) {
		t.Error("Dashes returns shared storage")
	}
	// Every dash pattern has positive lengths in dash, gap pairs.
	for i := range numPatterns {
		d := Dashes(i)
		if len(d)%2 != 0 {
			t.Errorf("Dashes(%d) = %v has an odd length", i, d)
		}
		for _, l := range d {
			if l <= 0 {
				t.Errorf("Dashes(%d) = %v has a non-positive length", i, d)
			}
		}
	}
}

func TestHatchContrast(t *testing.T) {
	// The hatching, composited over its bar, stands out from the bar's fill with the WCAG 2.1
	// contrast ratio (L1 + 0.05) / (L2 + 0.05) of relative luminances that success criterion
	// 1.4.11 asks of graphical objects, 3, for every colour.
	lin := func(c uint8) float64 { // sRGB to linear, IEC 61966-2-1
		v := float64(c) / 255
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	lum := func(r, g, b float64) float64 { return 0.2126*r + 0.7152*g + 0.0722*b }
	for i := range numColors {
		f := Color(i)
		h := hatchColor(f)
		a := float64(h.A) / 255
		mix := func(hc, fc uint8) float64 { return a*lin(hc) + (1-a)*lin(fc) }
		lf := lum(lin(f.R), lin(f.G), lin(f.B))
		lh := lum(mix(h.R, f.R), mix(h.G, f.G), mix(h.B, f.B))
		ratio := (math.Max(lf, lh) + 0.05) / (math.Min(lf, lh) + 0.05)
		if ratio < 3 {
			t.Errorf("Color(%d): hatching contrast %.2f, want ≥ 3", i, ratio)
		}
	}
}
