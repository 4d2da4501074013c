package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ParseError is a malformed line: File:Line: Msg.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// maxLine is the longest line the loaders accept.
const maxLine = 64 << 20

// files is where a loader's files live: a directory on disk or an embedded copy.
type files struct {
	fsys fs.FS
	dir  string // shown in messages before the file name
	disk bool   // fsys is directory dir on disk
}

// dirFiles returns the files of directory dir on disk.
func dirFiles(dir string) files { return files{fsys: os.DirFS(dir), dir: dir, disk: true} }

// splitPath returns the files of path's directory and path's base name when path is a file
// (or only path.gz exists), or the files of path and "" when it is a directory.
func splitPath(p string) (files, string, error) {
	st, err := os.Stat(p)
	if err != nil {
		if _, gzErr := os.Stat(p + ".gz"); gzErr == nil {
			return dirFiles(filepath.Dir(p)), filepath.Base(p), nil
		}
		return files{}, "", err
	}
	if st.IsDir() {
		return dirFiles(p), "", nil
	}
	return dirFiles(filepath.Dir(p)), filepath.Base(p), nil
}

// show returns the name of file as shown in messages.
func (f files) show(name string) string {
	if f.dir == "" {
		return name
	}
	return filepath.Join(f.dir, filepath.FromSlash(name))
}

// find returns name, or name+".gz" when only that exists, or "" when neither does.
func (f files) find(name string) string {
	for _, n := range []string{name, name + ".gz"} {
		if st, err := fs.Stat(f.fsys, n); err == nil && !st.IsDir() {
			return n
		}
	}
	return ""
}

// need is find for a file that must exist: a missing one is an error naming it.
func (f files) need(name string) (string, error) {
	found := f.find(name)
	if found == "" {
		return "", fmt.Errorf("%s: no such file (nor %s.gz)", f.show(name), path.Base(name))
	}
	return found, nil
}

// glob returns the files matching pattern or pattern+".gz", without duplicates of one file in
// both forms (the plain one wins).
func (f files) glob(pattern string) ([]string, error) {
	plain, err := fs.Glob(f.fsys, pattern)
	if err != nil {
		return nil, err
	}
	gz, err := fs.Glob(f.fsys, pattern+".gz")
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(plain))
	for _, p := range plain {
		seen[p] = true
	}
	for _, g := range gz {
		if !seen[g[:len(g)-len(".gz")]] {
			plain = append(plain, g)
		}
	}
	return plain, nil
}

// lines reads a file line by line, gunzipping it transparently when it starts with the gzip
// magic bytes, and keeps the line number for messages.
type lines struct {
	name  string // as shown in messages
	line  int
	close func() error
	sc    *bufio.Scanner
	text  []byte
	err   error
	// torn says that the current line is the file's last and ends without a line break.
	torn bool
}

// open opens name (or name+".gz") for reading line by line.
func (f files) open(name string) (*lines, error) {
	rd, shown, closer, err := f.reader(name)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	l := &lines{name: shown, close: closer, sc: sc}
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		l.torn = atEOF && tok != nil && adv == len(data) && (len(data) == 0 || data[len(data)-1] != '\n')
		return adv, tok, err
	})
	return l, nil
}

// reader opens name (or name+".gz", when only that exists) as a byte stream, gunzipped when
// it starts with the gzip magic bytes. It returns the name to show in messages and the
// function that closes the file. A missing file is an error naming it.
func (f files) reader(name string) (io.Reader, string, func() error, error) {
	found, err := f.need(name)
	if err != nil {
		return nil, "", nil, err
	}
	r, err := f.fsys.Open(found)
	if err != nil {
		return nil, "", nil, err
	}
	rd, err := maybeGunzip(r)
	if err != nil {
		r.Close()
		return nil, "", nil, fmt.Errorf("%s: %w", f.show(found), err)
	}
	return rd, f.show(found), r.Close, nil
}

func maybeGunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	magic, _ := br.Peek(2)
	if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return br, nil
	}
	return gzip.NewReader(br)
}

// next advances to the next line (without its line terminator, "\r" included, and without a
// byte-order mark at the start of the file).
func (l *lines) next() bool {
	if !l.sc.Scan() {
		if err := l.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				l.line++
				l.err = l.errorf("line longer than %d bytes", maxLine)
			} else {
				l.err = fmt.Errorf("%s: after line %d: %w", l.name, l.line, err)
			}
		}
		return false
	}
	l.line++
	l.text = bytes.TrimSuffix(l.sc.Bytes(), []byte{'\r'})
	if l.line == 1 {
		l.text = bytes.TrimPrefix(l.text, []byte("\ufeff")) // a byte-order mark, as some editors write
	}
	return true
}

// tornError returns the error of a torn last line: the file ends in the middle of the current
// line, which looks cut for the reason what (see lastValues).
func (l *lines) tornError(what string) error {
	return l.errorf("%s", tornMessage(what))
}

// tornMessage is the message of a torn last line that looks cut for the reason why.
func tornMessage(why string) string {
	return fmt.Sprintf("the file ends without a line break in this line, which looks cut (%s); if the line is complete, end the file with a line break", why)
}

// lastValues judges a file's final line when it ends without a line break, which may be a
// complete line whose writer left out the last break or a file cut in the middle of its last
// value (a copy or download stopped short). Such a line is accepted, and counted in
// Report.Unterminated, only when it has the file's structure (the reader checks its columns and
// values as for any line) and its last value looks whole: at least as long as the shortest last
// value of the file's other rows, and not a number ending in '.', 'e' or a sign ("4.", "1e",
// "2e-"), which no writer leaves. A cut that leaves a value as long as the others cannot be told
// from a complete line: the load line reports every accepted line so that it can be checked.
type lastValues struct {
	rows int // rows seen
	min  int // the length of the shortest last value among them
}

// add records the last value v of a row.
func (lv *lastValues) add(v []byte) {
	if lv.rows == 0 || len(v) < lv.min {
		lv.min = len(v)
	}
	lv.rows++
}

// cut returns why v, the last value of a final line without a line break, looks cut, or "".
func (lv *lastValues) cut(v []byte) string {
	if lv.rows > 0 && len(v) < lv.min {
		return fmt.Sprintf("its last value %q is shorter than the last value of every other row (%d or more characters)", v, lv.min)
	}
	if n := len(v); n > 0 && strings.IndexByte("0123456789.+-", v[0]) >= 0 && strings.IndexByte(".eE+-", v[n-1]) >= 0 &&
		len(bytes.Trim(v, "0123456789.eE+-")) == 0 {
		return fmt.Sprintf("its last value %q ends like a number cut short", v)
	}
	return ""
}

// unterminated checks the current line, which holds the last value v of its row and has been
// checked as any line: when it is the file's last and has no line break, it is an error if v
// looks cut (see lastValues), else it is counted in rep; every row's v is then recorded in lv.
func (l *lines) unterminated(lv *lastValues, v []byte, what string, rep *Report) error {
	if l.torn {
		if reason := lv.cut(v); reason != "" {
			return l.tornError(reason + "; expected " + what)
		}
		countUnterminated(rep, l.name, l.line)
	}
	lv.add(v)
	return nil
}

// tornOr returns err, a ParseError of the current line, as the error of a torn line when the
// line is the file's last and has no line break: it was probably cut.
func (l *lines) tornOr(err error) error {
	var pe *ParseError
	if l.torn && errors.As(err, &pe) && pe.File == l.name && pe.Line == l.line {
		return l.tornError(pe.Msg)
	}
	return err
}

// countUnterminated counts a final line without a line break that was kept.
func countUnterminated(rep *Report, file string, line int) {
	rep.count(&rep.Unterminated, "%s:%d: the last line has no line break (kept: its columns and last value look complete)", file, line)
}

// errorf returns a ParseError at the current line.
func (l *lines) errorf(format string, args ...any) error {
	return &ParseError{File: l.name, Line: max(l.line, 1), Msg: fmt.Sprintf(format, args...)}
}

// done closes the file and returns the first reading error.
func (l *lines) done() error {
	l.close()
	return l.err
}

// summary describes the file for Report.Files.
func (l *lines) summary() string { return fmt.Sprintf("%s (%d lines)", l.name, l.line) }

// datasetName names a dataset after its path: the directory's base name, or the file's base
// name without its extensions (.gz and one more).
func datasetName(p string) string {
	base := filepath.Base(filepath.Clean(p))
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return base
	}
	base = strings.TrimSuffix(base, ".gz")
	return strings.TrimSuffix(base, filepath.Ext(base))
}
