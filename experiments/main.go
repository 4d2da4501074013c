// Command experiments runs a workbench experiment described by a TOML config.
//
//	go run ./experiments -config configs/wiki.toml [-out DIR] [-set key=value ...] [-jobs N] [-only REGEXP] [-force]
//
// See README.md for the config format and the output layout.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "experiments:", err)
		os.Exit(1)
	}
}
