// Command generate writes docs/config.md (package configdoc): go generate ./docs/ runs it in
// docs/, with the repository's root one folder up.
//
//	go run ./internal/configdoc/generate -root . -o docs/config.md
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/samplingbias/workbench/internal/configdoc"
)

func main() {
	root := flag.String("root", "..", "the repository's root")
	out := flag.String("o", "config.md", "the file to write")
	flag.Parse()
	b, err := configdoc.Generate(*root)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}
