package samplers

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/samplingbias/workbench/internal/schema"
	"github.com/samplingbias/workbench/internal/setting"
)

// Custom is a sampler added with Register.
type Custom struct {
	// New returns a new sampler for one run, given the decoded options (nil without Options) and
	// sampler.negatives as written (0 when unset). An error about one key of the [sampler]
	// section begins with that key, as the built-in settings' errors do ("negatives: must be > 0,
	// got 0", "options.width: ..."): the workbench then names that key, where the config wrote
	// it; any other error is sampler.kind's.
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

// newError is the error err of the New of the registered sampler kind, about the key of the
// settings its message begins with (see Custom.New), else about kind.
func newError(kind Kind, err error) error {
	key := schema.New(reflect.TypeFor[Settings]()).KeyOf(err.Error())
	if key == "" {
		key = "kind"
	}
	return &keyedError{key: key, kind: kind, err: err}
}

// keyedError is an error of a registered sampler's New, about key: "key: sampler kind: …", the
// message of err without the key it begins with.
type keyedError struct {
	key  string
	kind Kind
	err  error
}

func (e *keyedError) Error() string {
	msg := e.err.Error()
	if rest, ok := strings.CutPrefix(msg, e.key+":"); ok {
		msg = strings.TrimSpace(rest)
	}
	return fmt.Sprintf("%s: sampler %s: %s", e.key, e.kind, msg)
}

func (e *keyedError) Unwrap() error { return e.err }

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
