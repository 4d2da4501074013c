// Package atomicfile writes files atomically, so that a reader, a resumed experiment or an
// interrupted one sees either the old file or the whole new one, never a torn one. It is shared
// infrastructure of the experiments command and of the models and plots packages.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Write creates or replaces path with what write writes: into a temporary file in the same
// directory (which must exist; see CreateTemp), flushed and synced, and renamed over path. The
// file has the mode the umask leaves of 0666, as files created by other programs do, so that a
// results folder shared by a group (umask 002) is readable and writable by its members. On any
// failure the temporary file is removed and path is left as it was; the error names path.
func Write(path string, write func(w io.Writer) error) (err error) {
	f, err := CreateTemp(path)
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

// CreateTemp creates a new temporary file ".<base>.tmp<random>" beside path, for the caller to
// write and then rename or link to path. Unlike os.CreateTemp, whose files are 0600 whatever the
// umask, its mode is 0666 less the umask: the mode path gets.
func CreateTemp(path string) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for range 10000 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, "."+base+".tmp*"), Err: fs.ErrExist}
}
