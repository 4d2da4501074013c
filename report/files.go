package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samplingbias/workbench/internal/atomicfile"
)

// ReportFiles is the file of a results folder that lists the files the last report wrote there
// besides metrics.csv, summary.md and the CSV files of its sections (which every report writes
// or removes by name): its figures, each with the SHA-256 of the content written, and its
// MLflow tree (MLflowDir) when it wrote one. It is how a report knows which files are its own:
// the next report removes the files listed that it does not write again and whose content is
// still what the listing says, and the listed MLflow tree when report.mlflow is off; a file
// the listing does not name (a user's), or one changed since it was written, is never removed.
const ReportFiles = "report.files"

// reportFilesHeader is the first line of ReportFiles.
const reportFilesHeader = "# The files the workbench's last report wrote in this folder, each after the SHA-256 of its content (- for a folder): the next report removes those it does not write again and that are unchanged."

// owned is an entry of ReportFiles: a file's name within the folder and the SHA-256 of its
// content, or a folder's name ending in "/" and no hash.
type owned struct {
	name, sum string
}

// readOwned reads the ReportFiles of dir; none when it has none (a folder written before the
// listing existed, whose figures are then left as they are).
func readOwned(dir string) ([]owned, error) {
	f, err := os.Open(filepath.Join(dir, ReportFiles))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []owned
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		if !ok || name == "" || strings.Contains(name, "..") || filepath.IsAbs(name) {
			continue // not a line of ours: nothing of it is removed
		}
		if sum == "-" {
			sum = ""
		}
		out = append(out, owned{name: name, sum: sum})
	}
	return out, sc.Err()
}

// ownedFile is the entry of the file name in dir as it is now.
func ownedFile(dir, name string) (owned, error) {
	sum, err := fileSum(filepath.Join(dir, name))
	return owned{name: name, sum: sum}, err
}

// fileSum is the hex SHA-256 of the file at path.
func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeOwned writes the ReportFiles of dir listing entries.
func writeOwned(dir string, entries []owned) error {
	return atomicfile.Write(filepath.Join(dir, ReportFiles), func(w io.Writer) error {
		fmt.Fprintln(w, reportFilesHeader)
		for _, e := range entries {
			sum := e.sum
			if sum == "" {
				sum = "-"
			}
			if _, err := fmt.Fprintf(w, "%s %s\n", sum, e.name); err != nil {
				return err
			}
		}
		return nil
	})
}

// keepOwned makes the report's files in dir those of now, the entries of the files this report
// wrote: it removes what the previous listing, before, names and now does not (a file only while its
// content is what was written, a folder whole), then lists now. The listing names the union
// of both until the removals are done, so that a process killed in between leaves no file of
// its own unlisted.
func keepOwned(dir string, before, now []owned) error {
	var stale []owned
	for _, b := range before {
		if !slices.ContainsFunc(now, func(e owned) bool { return e.name == b.name }) {
			stale = append(stale, b)
		}
	}
	if len(stale) > 0 {
		if err := writeOwned(dir, append(slices.Clone(now), stale...)); err != nil {
			return err
		}
	}
	for _, e := range stale {
		if err := removeOwned(dir, e); err != nil {
			return err
		}
	}
	return writeOwned(dir, now)
}

// removeOwned removes the listed entry e of dir: a folder whole, a file when its content is
// still the one listed; one that is gone already is no error.
func removeOwned(dir string, e owned) error {
	path := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(e.name, "/")))
	if strings.HasSuffix(e.name, "/") {
		return os.RemoveAll(path)
	}
	sum, err := fileSum(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case sum != e.sum:
		return nil // changed since the report wrote it: no longer the report's
	}
	return os.Remove(path)
}
