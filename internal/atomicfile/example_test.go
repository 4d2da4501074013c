package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/samplingbias/workbench/internal/atomicfile"
)

func ExampleWrite() {
	dir, err := os.MkdirTemp("", "atomicfile")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "metrics.csv")
	err = atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "run,value\na,0.5\n")
		return err
	})
	b, _ := os.ReadFile(path)
	fmt.Printf("%v\n%s", err, b)
	// Output:
	// <nil>
	// run,value
	// a,0.5
}
