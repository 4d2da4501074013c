package main

import (
	"fmt"
	"os"

	"github.com/samplingbias/workbench/workbench"
)

func main() {
	if err := workbench.Main(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "experiments:", err)
		os.Exit(1)
	}
}
