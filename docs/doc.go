// Package docs holds the tests of the repository's documentation: docs/config.md is generated
// from the settings declarations (package internal/configdoc) and checked up to date
// (TestConfigDoc) and against the loader, every default, allowed name and meaning of a written 0
// it states (TestConfigDocAgainstResolver); every quick command the README shows runs verbatim
// (TestREADMECommands), its own-data example trains (TestREADMEOwnInteractions), its dependency
// table matches go.mod, and no tracked file names a path of the machine that produced it
// (TestNoMachinePaths). The package has no code of its own.
//
// Regenerate docs/config.md after changing a setting with
//
//	go generate ./docs/
//
// (or WORKBENCH_WRITE_CONFIG_DOC=1 go test -run TestConfigDoc ./docs/, which writes the same).
package docs

//go:generate go run ../internal/configdoc/generate -root .. -o config.md
