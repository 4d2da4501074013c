package workbench

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// enumKeys lists the dotted keys of every enum setting of the config (a field of string kind
// whose pointer implements encoding.TextUnmarshaler), and of every list of enums.
func enumKeys() (enums, lists []string) {
	unmarshaler := reflect.TypeFor[encoding.TextUnmarshaler]()
	for _, key := range configSchema().Keys("") {
		f, _ := configSchema().Lookup(key)
		switch t := f.Go.Type; {
		case t.Kind() == reflect.String && reflect.PointerTo(t).Implements(unmarshaler):
			enums = append(enums, key)
		case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String &&
			reflect.PointerTo(t.Elem()).Implements(unmarshaler):
			lists = append(lists, key)
		}
	}
	return enums, lists
}

// TestEnumsNameTheLine: every enum setting of a config is a typed name that the decoder checks,
// so that a misspelled value is reported with the file, its line and the key, and the allowed
// names; in a file, with -set, and in a list. The keys found are checked against the known
// enums, so that a setting left as a plain string is noticed.
func TestEnumsNameTheLine(t *testing.T) {
	enums, lists := enumKeys()
	for _, want := range []string{"experiment", "data.source", "data.split.kind", "data.xmc.format",
		"data.interactions.reward", "slices.method", "model.activation", "train.optimizer", "train.order",
		"estimator.kind", "estimator.init", "estimator.first_arrival", "estimator.mode", "estimator.formula",
		"estimator.lsh.inner", "loss.variant", "loss.form", "sampler.kind", "loss.correct_at",
		"loss.logq_probability", "loss.q_source", "loss.reduction", "loss.impl", "plots.font", "plots.legend",
		"plots.y_range", "freq_sim.init", "freq_sim.first_arrival", "freq_sim.interleaving"} {
		if !slices.Contains(enums, want) {
			t.Errorf("%s is not a typed enum (enums found: %v)", want, enums)
		}
	}
	if !slices.Contains(lists, "plots.formats") {
		t.Errorf("plots.formats is not a list of typed enums (lists found: %v)", lists)
	}
	body := func(key, value string) string {
		i := strings.LastIndex(key, ".")
		if i < 0 {
			return fmt.Sprintf("# a comment\n%s = %s\n", key, value)
		}
		return fmt.Sprintf("[%s]\n%s = %s\n", key[:i], key[i+1:], value)
	}
	for _, key := range enums {
		t.Run(key, func(t *testing.T) {
			_, _, err := loadConfig(writeConfig(t, body(key, `"no_such_name"`)), nil)
			wantError(t, err, "exp.toml:2:", key+`: unknown "no_such_name" (allowed: `)
			_, _, err = loadConfig(writeConfig(t, ""), []string{key + "=no_such_name"})
			wantError(t, err, "-set "+key+"=no_such_name: ", key+`: unknown "no_such_name" (allowed: `)
		})
	}
	for _, key := range lists {
		t.Run(key, func(t *testing.T) {
			_, _, err := loadConfig(writeConfig(t, body(key, `["png", "no_such_name"]`)), nil)
			wantError(t, err, "exp.toml:2:", key+`: unknown "no_such_name" (allowed: `)
		})
	}
}

// TestEvalFilterBool: the boolean eval.filter of earlier versions is an error
// naming the file, the line and the choices; false still reads as none.
func TestEvalFilterBool(t *testing.T) {
	_, _, err := loadConfig(writeConfig(t, "[eval]\nfilter = true\n"), nil)
	wantError(t, err, "exp.toml:2:", `eval.filter: is a name now: "seen"`)
	if _, _, err := loadConfig(writeConfig(t, "[eval]\nfilter = false\n"), nil); err != nil {
		t.Errorf("filter = false: %v", err)
	}
}
