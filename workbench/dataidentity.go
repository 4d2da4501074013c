package workbench

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/internal/atomicfile"
)

// Keys of the data's identity in the canonical encoding.
const (
	// dataContentKey holds the data's content identity (see dataIdentity) in place of
	// data.path, which is left out: where the data are does not change the results.
	dataContentKey = "data.content"
	// legacyDataKey held, in folders written by earlier versions, the data's location and its
	// files' modification times.
	legacyDataKey = "data.path"
)

// withDataIdentity replaces data.path in the canonical lines by the content identity of the
// data that d's loader reads (none for synthetic data, which its settings and the seed
// determine).
func withDataIdentity(kvs []keyValue, d datasets.Settings) ([]keyValue, error) {
	id, err := dataIdentity(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	kvs = slices.DeleteFunc(kvs, func(kv keyValue) bool { return kv.Key == legacyDataKey })
	if id != "" {
		kvs = append(kvs, keyValue{dataContentKey, id})
	}
	return kvs, nil
}

// dataIdentity identifies the data by content: for every file the loader reads (see
// datasets.ListInputs; never a README or any other file beside them), in the loader's order,
// its name relative to the data folder, its size and the SHA-256 of its bytes, as
//
//	{links.tsv: 1234 bytes sha256:…; categories.tsv: 567 bytes sha256:…}
//
// Touching the files, copying the folder elsewhere or extracting identical bytes again keeps
// the identity; a changed byte changes it. The embedded Wikispeedia graph is identified the
// same way from its embedded bytes. Synthetic data read no file and have the identity "".
//
// A file's hash is computed once: it is cached in the user's cache directory (see
// dataHashCache) under the file's path, size, modification time, inode and status-change time
// (see cachedHash).
func dataIdentity(d datasets.Settings) (string, error) {
	in, err := datasets.ListInputs(d)
	if err != nil {
		return "", err
	}
	if len(in.Names) == 0 {
		return "", nil
	}
	parts := make([]string, len(in.Names))
	for i, name := range in.Names {
		var (
			size int64
			sum  string
		)
		if in.Dir == "" {
			size, sum, err = hashFile(in.FS, name)
		} else {
			size, sum, err = cachedHash(filepath.Join(in.Dir, filepath.FromSlash(name)))
		}
		if err != nil {
			return "", err
		}
		parts[i] = fmt.Sprintf("%s: %d bytes sha256:%s", name, size, sum)
	}
	return "{" + strings.Join(parts, "; ") + "}", nil
}

// hashFile returns the size and the SHA-256 (in hex) of file name of fsys.
func hashFile(fsys fs.FS, name string) (int64, string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", name, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// racyWindow: a file whose status changed this recently may change again within its
// timestamp's resolution without its stamp changing, so its hash is not cached.
const racyWindow = 2 * time.Second

// cachedHash returns the size and SHA-256 of the file at path, from the cache when an entry for
// its resolved path, size, modification time, inode and status-change time is there (see
// changeStamp: an edit of the same size whose modification time is set back, as cp -p and
// rsync -t do, changes the latter two), else hashing it and caching the result. Where the
// status-change time is not known, the file is hashed every time. A cache that cannot be read
// or written only costs the hashing again.
func cachedHash(path string) (int64, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	st, err := os.Stat(abs)
	if err != nil {
		return 0, "", err
	}
	change, changed, known := changeStamp(st)
	stamp := fmt.Sprintf("%s\n%d %d %s", abs, st.Size(), st.ModTime().UnixNano(), change)
	entry := ""
	if known {
		entry = dataHashCache(abs)
	}
	if entry != "" {
		if b, err := os.ReadFile(entry); err == nil {
			if k, sum, ok := strings.Cut(string(b), "\nsha256 "); ok && k == stamp && len(sum) == 2*sha256.Size {
				return st.Size(), sum, nil
			}
		}
	}
	n, sum, err := hashFile(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", path, err)
	}
	if n != st.Size() {
		return 0, "", fmt.Errorf("%s: changed while it was read (%d bytes, then %d)", path, st.Size(), n)
	}
	if entry != "" && time.Since(changed) > racyWindow && time.Since(st.ModTime()) > racyWindow {
		if os.MkdirAll(filepath.Dir(entry), 0o755) == nil {
			// A failed write leaves no entry (atomicfile), and the hash is computed next time.
			_ = atomicfile.Write(entry, func(w io.Writer) error {
				_, err := io.WriteString(w, stamp+"\nsha256 "+sum)
				return err
			})
		}
	}
	return n, sum, nil
}

// dataHashCache is the cache entry of the file at abs: a file named by the SHA-256 of the path
// in the directory "samplingbias-workbench/data-hashes" of the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux), holding the path, size,
// modification time, inode and status-change time it was computed for and the hash. Entries
// are written atomically (a temporary file renamed over the entry), so concurrent processes,
// which write the same entry, never read a torn one; an entry whose stamp differs from the
// file's is ignored. "" when the system has no cache directory.
func dataHashCache(abs string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	key := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, "samplingbias-workbench", "data-hashes", hex.EncodeToString(key[:16]))
}

// dataFile is one file of a content identity.
type dataFile struct {
	name string
	size int64
	sum  string
}

// parseDataIdentity reads a content identity written by dataIdentity; false when v is not one.
func parseDataIdentity(v string) ([]dataFile, bool) {
	body, ok := strings.CutPrefix(v, "{")
	if body, ok = strings.CutSuffix(body, "}"); !ok {
		return nil, false
	}
	var out []dataFile
	for _, part := range strings.Split(body, "; ") {
		name, rest, ok1 := strings.Cut(part, ": ")
		size, sum, ok2 := strings.Cut(rest, " bytes sha256:")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok1 || !ok2 || err != nil {
			return nil, false
		}
		out = append(out, dataFile{name, n, sum})
	}
	return out, true
}

// dataDifferences describes how the data of here differ from those of the folder's settings:
// one line per file that differs, naming the file and what changed (its size, or its content
// at the same size, or that only one side reads it). A folder written by an earlier version,
// which identified data by location and modification times (and the embedded graph by the
// module's version), gets one line saying how to proceed. It returns nothing when the data are the same or when an ablation axis of either
// side chooses the files.
func dataDifferences(here, folder folderSettings) []string {
	// The settings that choose which files the loader reads: an ablation axis over one of
	// them gives each run its own data.
	fileKeys := []string{legacyDataKey, dataContentKey, "data.source", "data.interactions.file",
		"data.interactions.item_features", "data.interactions.query_features", "data.xmc.train", "data.xmc.test", "data.xmc.labels_xml"}
	for _, axes := range [][]string{here.axes, folder.axes} {
		for _, k := range fileKeys {
			if underAxis(k, axes) {
				return nil
			}
		}
	}
	a, b := here.values[dataContentKey], folder.values[dataContentKey]
	how := ""
	if old, ok := folder.values[legacyDataKey]; ok {
		how = fmt.Sprintf("by location and modification times (%s)", old)
	} else if a != "" && b == "" && here.values["data.source"] == folder.values["data.source"] {
		// Data read from files but not identified by content: the embedded graph, whose
		// identity was the module's.
		how = "by the module's version (the embedded graph)"
	}
	if how != "" {
		return []string{fmt.Sprintf("the folder identifies its data %s, as earlier versions of the workbench did, which cannot be compared with today's identity by content; its runs cannot be reused: choose another -out, or remove the folder to train again", how)}
	}
	if a == b {
		return nil
	}
	mine, ok1 := parseDataIdentity(a)
	theirs, ok2 := parseDataIdentity(b)
	if !ok1 || !ok2 {
		return []string{fmt.Sprintf("%s = %s here, %s in the folder", dataContentKey, orUnset(a), orUnset(b))}
	}
	var out []string
	for _, f := range mine {
		j := slices.IndexFunc(theirs, func(g dataFile) bool { return g.name == f.name })
		switch {
		case j < 0:
			out = append(out, fmt.Sprintf("data file %s: read here, not for the folder's runs", f.name))
		case theirs[j].size != f.size:
			out = append(out, fmt.Sprintf("data file %s: %d bytes here, %d bytes for the folder's runs", f.name, f.size, theirs[j].size))
		case theirs[j].sum != f.sum:
			out = append(out, fmt.Sprintf("data file %s: other content at the same size (%d bytes)", f.name, f.size))
		}
	}
	for _, g := range theirs {
		if !slices.ContainsFunc(mine, func(f dataFile) bool { return f.name == g.name }) {
			out = append(out, fmt.Sprintf("data file %s: read for the folder's runs, not here", g.name))
		}
	}
	if len(out) == 0 { // the same files, read in another order
		out = append(out, fmt.Sprintf("%s = %s here, %s in the folder", dataContentKey, a, b))
	}
	return out
}
