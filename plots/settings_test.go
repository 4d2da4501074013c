package plots

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestSettingsResolveDefaults(t *testing.T) {
	var s Settings
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	want := Settings{Width: 3.5, Height: 2.6, DPI: 300, FontSize: 8, Font: "serif", Formats: []Format{"png"}, Legend: "top", YRange: "auto", XScale: "linear"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("zero value resolved to %+v, want %+v", s, want)
	}
	// Resolving again changes nothing; set fields are kept.
	if err := s.Resolve(); err != nil || !reflect.DeepEqual(s, want) {
		t.Errorf("second Resolve: %+v, %v", s, err)
	}
	s = Settings{Width: 7, DPI: 150, Font: "sans", Formats: []Format{"pdf", "png"}}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	want = Settings{Width: 7, Height: 2.6, DPI: 150, FontSize: 8, Font: "sans", Formats: []Format{"pdf", "png"}, Legend: "top", YRange: "auto", XScale: "linear"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("resolved to %+v, want %+v", s, want)
	}
}

func TestSettingsResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Width: -1}, "width: must be in [1, 20] inches, got -1"},
		{Settings{Width: 21}, "width: must be in [1, 20] inches, got 21"},
		{Settings{Width: 0.5}, "width: must be in [1, 20] inches, got 0.5"},
		{Settings{Width: math.NaN()}, "width: must be in [1, 20] inches, got NaN"},
		{Settings{Height: math.Inf(1)}, "height: must be in [1, 20] inches, got +Inf"},
		{Settings{Height: -2.6}, "height: must be in [1, 20] inches, got -2.6"},
		{Settings{DPI: 10}, "dpi: must be in [50, 1200], got 10"},
		{Settings{DPI: -300}, "dpi: must be in [50, 1200], got -300"},
		{Settings{DPI: 2400}, "dpi: must be in [50, 1200], got 2400"},
		{Settings{DPI: 1200, Height: 10}, "dpi: 1200 dpi × 10 in = 12000 pixels, more than the 10000 allowed per side"},
		{Settings{FontSize: 2}, "font_size: must be in [4, 36] points, got 2"},
		{Settings{FontSize: 40}, "font_size: must be in [4, 36] points, got 40"},
		{Settings{FontSize: math.NaN()}, "font_size: must be in [4, 36] points, got NaN"},
		{Settings{Font: "comic"}, `font: unknown "comic" (allowed: serif, sans)`},
		{Settings{Formats: []Format{"png", "jpg"}}, `formats: unknown "jpg" (allowed: png, svg, pdf)`},
		{Settings{Formats: []Format{"PNG"}}, `formats: unknown "PNG" (allowed: png, svg, pdf)`},
		{Settings{Formats: []Format{"svg", "png", "svg"}}, `formats: "svg" listed twice`},
		{Settings{Legend: "inside"}, `legend: unknown "inside" (allowed: top, right)`},
		{Settings{YRange: "fit"}, `y_range: unknown "fit" (allowed: auto, zero, data)`},
		{Settings{Labels: map[string]string{"": "x"}}, `labels: an empty key (write the axis value, or axis=value)`},
	} {
		err := tc.s.Resolve()
		if err == nil || err.Error() != tc.want {
			t.Errorf("Resolve(%+v) = %v, want %q", tc.s, err, tc.want)
		}
	}
}

// TestSettingsTOML decodes a [plots] section strictly, as the experiments command does, to
// check the field tags.
func TestSettingsTOML(t *testing.T) {
	const doc = `
width = 7.0
height = 3
dpi = 600
font_size = 9
font = "sans"
formats = ["png", "pdf"]
legend = "right"
y_range = "data"
labels = { in_batch = "in-batch", "negatives=0" = "" }
`
	var s Settings
	md, err := toml.Decode(doc, &s)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 0 {
		t.Fatalf("undecoded keys %v", u)
	}
	want := Settings{Width: 7, Height: 3, DPI: 600, FontSize: 9, Font: "sans", Formats: []Format{"png", "pdf"}, Legend: "right",
		YRange: "data", Labels: map[string]string{"in_batch": "in-batch", "negatives=0": ""}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("decoded %+v, want %+v", s, want)
	}
	if err := s.Resolve(); err != nil {
		t.Error(err)
	}
	// Every field has an explicit snake_case tag.
	typ := reflect.TypeFor[Settings]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("toml")
		if tag == "" || tag != strings.ToLower(tag) {
			t.Errorf("field %s has toml tag %q", f.Name, tag)
		}
	}
}
