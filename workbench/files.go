package workbench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/samplingbias/workbench/internal/atomicfile"
)

// writeAtomic writes path atomically (see package atomicfile), creating its directory.
func writeAtomic(path string, write func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, write)
}

// removeStale removes the temporary files of atomic writes (".name.tmp*") in dir that were last
// modified before since: those of a process killed while writing. A run's folder is cleaned when
// the run starts (the run is this process's, so since is then); the experiment's folder before
// its folder-level files are written, of files older than this invocation, so that another
// process writing there now keeps its own.
func removeStale(dir string, since time.Time) {
	entries, _ := os.ReadDir(dir) // a missing folder has nothing to clean
	for _, e := range entries {
		if ok, _ := filepath.Match(".*.tmp*", e.Name()); !ok || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(since) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writeBytes writes b to path atomically.
func writeBytes(path string, b []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeJSON writes v to path atomically as indented JSON.
func writeJSON(path string, v any) error {
	return writeAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// readJSON reads path into v; a missing file is reported with fs.ErrNotExist.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

const hashPrefix = "# workbench training hash: "

// claimOutput makes out the home of the experiment's training config: a folder holding the results
// of another training config is refused, so that results of different configs never mix (a change
// of [eval], [slices] or [plots] alone is allowed: runs are then re-evaluated or figures redrawn).
// It then writes the resolved config (with its training hash on the first line) to out/config.toml.
func claimOutput(out string, cfg *Config) error {
	hash, err := cfg.trainHash()
	if err != nil {
		return err
	}
	path := filepath.Join(out, "config.toml")
	if b, err := os.ReadFile(path); err == nil {
		first, _, _ := strings.Cut(string(b), "\n")
		old := strings.TrimPrefix(first, hashPrefix)
		if old != hash {
			return fmt.Errorf("%s holds the results of a different config (training hash %s, this one %s): choose another -out or remove the folder", out, old, hash)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	body, err := cfg.encode()
	if err != nil {
		return err
	}
	return writeBytes(path, append([]byte(hashPrefix+hash+"\n"), body...))
}
