// Package schema is the config schema of a tree of settings structs, built once by reflection
// from their types: every key's dotted path, its Go field and type, its kind (a value, a table, an
// array of tables or a table of free names) and the declarations its struct tags make. It is the
// one walk over a config that every use shares: setting a key from a TOML value (the -set flag,
// ablation values, the options table of a registered variant), reading a key of a value,
// enumerating the keys (for "did you mean" and the reference documentation) and visiting every
// leaf of a value (for the canonical identity of a run).
//
// A field's key is its toml tag (a field tagged "-", or unexported, is no key). Tags the schema
// reads beside toml:
//
//   - affects:"training|evaluation|figures|grid|nothing" declares what a change of the field
//     changes; a field without one inherits its table's;
//   - zero:"<meaning>" declares that a written zero value of the field is a setting with that
//     meaning (eval.workers = 0 means runtime.GOMAXPROCS(0)) rather than a request for the
//     default, which a loader refuses.
//
// A table type nested in itself (a mixture sampler's components are samplers) shares one Table:
// its keys are listed once, at their first level.
package schema
