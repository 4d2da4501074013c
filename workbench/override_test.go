package workbench

import (
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// value is the TOML value of -set's text s.
func value(s string) any {
	x, _ := parseValue(s)
	return x
}

// TestSetKeyAsTOML: setting a key by setKey gives the config the TOML decoder gives for the same
// key and value written in a file (the independent implementation), and fails where it fails.
func TestSetKeyAsTOML(t *testing.T) {
	setKey := func(v reflect.Value, key string, x any) error { return configSchema().Set(v, key, x, suggest) }
	tests := []struct{ key, value string }{
		{"loss.temperature", "0.05"},
		{"loss.temperature", "1"}, // an integer fills a float
		{"loss.variant", `"logq"`},
		{"train.batch_size", "256"},
		{"train.batch_size", "2.5"},       // a float does not fill an integer
		{"train.batch_size", `"big"`},     // nor does a string
		{"model.hidden", "[64, 32]"},      // a list
		{"model.hidden", "[]"},            // an empty list
		{"model.hidden", `["a"]`},         // a list of the wrong type
		{"eval.filter", "true"},           // the bool of earlier versions: an error
		{"eval.k", "[1, 10, 100]"},        // a list of ints
		{"data.synthetic", "{items = 5}"}, // a table: the other keys kept
		{"data.synthetic.zipf", "1.2"},
		{"data.interactions.item_features", `[{file = "f.csv", columns = ["genre"]}]`},
		{"data.interactions.item_features", `[{file = "f.csv", colour = "red"}]`}, // unknown nested key
		{"seeds", "[1, 2, 3]"},
		{"data_seed", "-4"},
		{"plots.labels", `{plain = "in-batch", "negatives=64" = "m = 64"}`}, // a map
		{"plots.labels", `{plain = 3}`},                                     // a map of the wrong type
		{"plots.labels.plain", `"in-batch"`},                                // a map's entry
		{"plots.labels.plain", "3"},                                         // of the wrong type
		{"plots.labels.plain.x", `"a"`},                                     // not a table
		{"loss.options.factor", "3"},                                        // a registered variant's option
		{"loss.options.sub.x", "[1.5]"},                                     // not a table either

		{"data.wikilinks.keep_self_links", "true"}, // a bool
		{"eval.filter", `"seen"`},                  // an enum
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			var viaSet, viaTOML Config
			setErr := setKey(reflect.ValueOf(&viaSet).Elem(), tt.key, value(tt.value))
			parts := strings.Split(tt.key, ".")
			doc := strings.Join(parts[len(parts)-1:], "") + " = " + tt.value + "\n"
			if len(parts) > 1 {
				doc = "[" + strings.Join(parts[:len(parts)-1], ".") + "]\n" + doc
			}
			md, tomlErr := toml.Decode(doc, &viaTOML)
			if tomlErr == nil && len(md.Undecoded()) > 0 {
				tomlErr = undecoded(md, newSource("doc", []byte(doc)))
			}
			if (setErr == nil) != (tomlErr == nil) {
				t.Fatalf("setKey error %v, TOML decoding error %v", setErr, tomlErr)
			}
			if setErr != nil {
				if !strings.Contains(setErr.Error(), tt.key) {
					t.Errorf("error %q does not name %s", setErr, tt.key)
				}
				return
			}
			if !reflect.DeepEqual(viaSet, viaTOML) {
				t.Errorf("setKey gives\n%+v\nTOML decoding gives\n%+v", viaSet, viaTOML)
			}
		})
	}
	// A map's entry set by key keeps the other entries, in a new map.
	var m Config
	m.Plots.Labels = map[string]string{"plain": "in-batch"}
	orig := m.Plots.Labels
	if err := setKey(reflect.ValueOf(&m).Elem(), "plots.labels.logq", "logQ"); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"plain": "in-batch", "logq": "logQ"}; !reflect.DeepEqual(m.Plots.Labels, want) || len(orig) != 1 {
		t.Errorf("plots.labels.logq: labels %v (the original map %v), want %v", m.Plots.Labels, orig, want)
	}
	var c Config
	for _, key := range []string{"loss.temprature", "optimiser.lr", "loss.temperature.x"} {
		if err := setKey(reflect.ValueOf(&c).Elem(), key, 1.0); err == nil || !strings.Contains(err.Error(), "unknown key "+key) {
			t.Errorf("%s: error %v", key, err)
		}
	}
}
