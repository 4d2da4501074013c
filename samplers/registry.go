package samplers

import (
	"fmt"

	"github.com/samplingbias/workbench/internal/setting"
)

// Custom is a sampler added with Register.
type Custom struct {
	// New returns a new sampler for one run, given the decoded options (nil without Options) and
	// sampler.negatives as written (0 when unset).
	New func(options any, negatives int) (Sampler, error)
	// Options, if not nil, returns a pointer to a new options struct whose fields have toml tags;
	// the [sampler.options] table is decoded into it strictly (a key it does not declare is an
	// error naming the key). If the struct has a method Resolve() error, it is called after
	// decoding to fill defaults and validate.
	Options func() any
}

// registry holds the samplers added with Register. It is process-wide because a program registers
// its samplers before handing its arguments to the workbench's command (workbench.Main), whose
// config decoding must then see them by name; names are unique and never replaced.
var registry setting.Registry[Kind, Custom]

// Register adds a sampler under name, to be selected with sampler.kind = name. The name must be
// lower-case snake_case, not a built-in kind's and not registered before; c.New must be set.
func Register(name string, c Custom) error {
	if c.New == nil {
		return fmt.Errorf("samplers: sampler %s has no New", name)
	}
	if err := setting.CheckOptionsFunc("samplers: sampler "+name, c.Options); err != nil {
		return err
	}
	return registry.Add("samplers: sampler", name, builtins, c)
}

// registered returns the sampler added under name, if any.
func registered(name Kind) (Custom, bool) { return registry.Get(name) }

// Kinds returns the names of every sampler: the built-in ones in their documented order, then the
// registered ones sorted.
func Kinds() []Kind { return registry.Names(builtins) }

// decodeOptions decodes s.Options strictly into the options struct of a registered sampler (nil
// for a sampler without options). Errors start with the key, "options.<key>: ...".
func (s *Settings) decodeOptions() (any, error) {
	var opts any
	if c, ok := registered(s.Kind); ok && c.Options != nil {
		opts = c.Options()
	}
	if err := setting.DecodeOptions(s.Options, opts, "sampler "+string(s.Kind)); err != nil {
		return nil, err
	}
	return opts, nil
}
