package losses

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/internal/schema"
	"github.com/samplingbias/workbench/internal/setting"
)

// Custom is a loss variant added with Register: its expression and the
// options it declares. The settings every variant shares keep their meaning:
// the sampler (the geometry of the columns the scores have, and the side inputs it declares,
// read by name with Expr.Side), temperature and
// learn_temperature (Expr.Tau), correct_at (Expr.Correct, only when
// Correction is set), remove_accidental_hits (Expr.Neg), reduction
// (Expr.Reduce) and impl (auto or expression: a registered variant has no
// fused kernel). form, uncorrected_positive, la_tau and gramian_weight belong
// to built-in variants and are rejected.
type Custom struct {
	// Expr returns the scalar loss node built from e (see Expr). It may use
	// gorgonia.Must: a panic with an error while building is returned by
	// Loss.Node as that error.
	Expr func(e *Expr) (*gorgonia.Node, error)
	// Options, if not nil, returns a pointer to a new options struct whose
	// fields have toml tags; the [loss.options] table is decoded into it
	// strictly (a key it does not declare is an error naming the key) and
	// handed to Expr as e.Options. If the struct has a method Resolve() error,
	// it is called after decoding to fill defaults and validate, as the
	// built-in settings do.
	Options func() any
	// Correction says that the variant applies an additive logit correction
	// (through Expr.Correct), so that correct_at applies to it.
	Correction bool
	// LogQ says that the variant corrects its logits by −log Q through
	// Expr.LogQCorrection, so that logq_probability, uncorrected_positive and
	// correct_at apply to it as they do to logq.
	LogQ bool
	// Positives says that the variant reads the data's known positives (the side input
	// candidates.Positives, Expr.Side), which the data declares only for the variants that read
	// them (login, logout and those that say so here): listing each query's training items and
	// marking them in every step costs time and memory the other variants do not spend.
	Positives bool
	// Family names the variants whose loss values share a scale with this
	// one's, e.g. FamilySoftmax for a corrected softmax cross-entropy: the
	// report draws each family's training-loss curves in a panel of their own.
	// Default: the variant's own name (a panel of its own).
	Family Family
}

// registry holds the variants added with Register. It is process-wide
// because a program registers its variants before handing its arguments to
// the workbench's command (workbench.Main), whose config decoding and runs
// must then see them by name. Names are unique and never replaced.
var registry setting.Registry[Variant, Custom]

// Register adds a loss variant under name, to be selected with
// loss.variant = name. The name must be lower-case snake_case, not a
// built-in variant's and not registered before; v.Expr must be set.
func Register(name string, v Custom) error {
	if v.Expr == nil {
		return fmt.Errorf("losses: variant %s has no Expr", name)
	}
	if err := setting.CheckOptionsFunc("losses: variant "+name, v.Options); err != nil {
		return err
	}
	return registry.Add("losses: variant", name, variantNames, v)
}

// registered returns the definition of a variant defined by an expression with options: a
// built-in one (builtinCustom) or one added under name with Register.
func registered(name Variant) (Custom, bool) {
	if v, ok := builtinCustom(name); ok {
		return v.Custom, true
	}
	return registry.Get(name)
}

// Variants returns the names of every variant: the built-in ones in their
// documented order, then the registered ones sorted.
func Variants() []Variant { return registry.Names(variantNames) }

// hasOption reports whether the options of s's variant have a key name (a table written under
// that name is then the option's value, not a table of a variant's options).
func (s *Settings) hasOption(name string) bool {
	v, ok := registered(s.Variant)
	if !ok || v.Options == nil {
		return false
	}
	return schema.New(reflect.TypeOf(v.Options()).Elem()).Field(name) != nil
}

// decodeOptions decodes s.Options strictly into the options struct of a
// registered variant (nil for a variant without options). Errors start with
// the key, "options.<key>: ...".
func (s *Settings) decodeOptions() (any, error) {
	var opts any
	if v, ok := registered(s.Variant); ok && v.Options != nil {
		opts = v.Options()
	}
	if err := setting.DecodeOptions(s.Options, opts, "variant "+string(s.Variant)); err != nil {
		return nil, err
	}
	return opts, nil
}

// variantTable returns the entry k of an options table, of value v, when it is the table of
// options of the registered variant k ([loss.options.<variant>]).
func variantTable(k string, v any) (map[string]any, bool) {
	table, isTable := v.(map[string]any)
	_, ok := registered(Variant(k))
	return table, ok && isTable
}

// VariantTables lists, sorted, the registered variants whose own table of options
// ([loss.options.<variant>], see resolveOptions) the options hold: the runs of those variants
// read them, the other runs do not.
func (s *Settings) VariantTables() []Variant {
	var out []Variant
	for k, v := range s.Options {
		if _, ok := variantTable(k, v); ok {
			out = append(out, Variant(k))
		}
	}
	slices.Sort(out)
	return out
}

// resolveOptions checks the options of a registered variant (see decodeOptions) and replaces
// them by their resolved values, defaults included. Options may be given per variant, as a
// table named after a registered variant ([loss.options.<variant>]): a run takes the table of
// its own variant (the other variants' tables are for the other runs of a grid), with the keys
// outside any variant's table, so that one grid compares registered variants at their options
// with built-in ones. A table of a variant that is not registered is an error. The resolved
// options are flat: the run's variant's options only, so that the resolved settings say every
// option a run used (a run's config.toml writes them, and a default changed in code changes
// the run's identity).
func (s *Settings) resolveOptions() error {
	flat := map[string]any{}
	for k, v := range s.Options {
		table, ok := variantTable(k, v)
		if !ok {
			_, isTable := v.(map[string]any)
			switch {
			case isBuiltin(Variant(k)) && isTable:
				return fmt.Errorf("options.%s: variant %s is built in and has no options", k, k)
			case isTable && !s.hasOption(k):
				names := setting.Column(Variants(), func(v Variant) string { return string(v) })
				return fmt.Errorf("options.%s: a table of options is named after a registered variant, and no variant %s is registered%s",
					k, k, setting.DidYouMean(k, names))
			}
			flat[k] = v
			continue
		}
		if Variant(k) != s.Variant { // the other runs' table, checked as theirs
			other := Settings{Variant: Variant(k), Options: table}
			if _, err := other.decodeOptions(); err != nil {
				return fmt.Errorf("options.%s.%s", k, strings.TrimPrefix(err.Error(), "options."))
			}
			continue
		}
		for name, x := range table {
			if _, dup := s.Options[name]; dup {
				return fmt.Errorf("options.%s: given both in options.%s and for every variant", name, k)
			}
			flat[name] = x
		}
	}
	s.Options = flat
	if len(flat) == 0 {
		s.Options = nil
	}
	opts, err := s.decodeOptions()
	if err != nil || opts == nil {
		return err
	}
	s.Options = schema.ToTOML(opts)
	return nil
}
