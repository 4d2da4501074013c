// Package configdoc generates docs/config.md, the reference of every key of an experiment's
// config, from the config schema (package schema, of workbench.Config: keys, types, affects and
// zero tags), the doc comments of the settings fields and the Default constants they name (read
// from the packages' source), each section's Resolve (the defaults it fills) and the loader
// itself (the enum names it accepts, in some setting of the other keys). Go names a config's
// author cannot see are written as what they stand for: a Default constant or an enum constant
// as its value, a field of the settings struct as its key.
//
// Regenerate the file with
//
//	go generate ./docs/
//
// The tests of package docs compare the file with Generate's output and check every default,
// allowed name and "0 means" it states against the loader (Probe).
package configdoc
