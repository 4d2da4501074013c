// Package atomicfile writes files atomically, so that a reader, a resumed experiment or an
// interrupted one sees either the old file or the whole new one, never a torn one. It is shared
// infrastructure of the experiments command and of the models and plots packages.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what write writes: into a temporary file in the same
// directory (which must exist), flushed and synced, made readable by all (0644) and renamed
// over path. On any failure the temporary file is removed and path is left as it was; the error
// names path.
func Write(path string, write func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
