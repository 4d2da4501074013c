// Package setting holds the few pieces every package's Settings.Resolve is written with, so that
// each Resolve reads as a short list of declarations and every package checks a value the same
// way:
//
//   - an enum is a named string type (gonum's convention: type Optimizer string, constants
//     OptimizerAdam, ...) whose names are listed once, in a table next to the constants; its
//     UnmarshalText calls [Unmarshal], so that the TOML decoder rejects a misspelled name at
//     its line, and Resolve calls [OneOf] with the same table for settings built in Go code;
//   - [Default] fills a zero field with its default constant, the one place a default is stated
//     (doc comments name the constant rather than repeat its value);
//   - [Positive], [AtLeast], [Range] and [NotNegative] check a number, [OnlyFor] rejects a value
//     written for an option the chosen variant does not use;
//   - [First] returns the first error of a list of checks.
//
// Every error starts with the setting's TOML key, e.g. `kind: unknown "sketch" (allowed: exact,
// unigram, streaming, multihash, lsh)`; a value written in a config but not allowed is an
// error, never replaced by the default.
package setting
