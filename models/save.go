package models

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"reflect"
	"slices"

	"github.com/samplingbias/workbench/internal/atomicfile"
)

// Files written by Save and by training checkpoints have one layout:
//
//	magic    8 bytes: the kind and version of the file (modelMagic, checkpointMagic)
//	payload  header length  8 bytes, little-endian
//	         header         encoding of the file's small content (settings, parameter names
//	                        and shapes, …), which says which arrays follow and how long they are:
//	                        JSON in model files, gob in checkpoints (see encodeHeader)
//	         arrays         the values of those arrays in order, raw little-endian (float32,
//	                        float64 or int32), nothing between them
//	length   8 bytes: the payload's length, little-endian
//	checksum 4 bytes: CRC-32C (Castagnoli) of magic, payload and length, little-endian
//
// The file is streamed: writing, the arrays go from the model to the file through a small buffer
// with the checksum computed as they pass; reading, the whole file's checksum is verified first
// (a pass that holds nothing), then the header is decoded and the arrays are read straight into
// their destinations (the model's own parameters), so that neither side ever holds a second copy
// of the parameters. CRC-32C detects every single-bit flip and every burst of up to 32 bits.
//
// Version 3 of model files (2 of checkpoints) introduced this layout; version 3 of checkpoints
// compresses the estimator's state; version 4 of model files has a JSON header instead of gob, so that a model file's bytes depend on the model alone;
// version 2 held one gob of everything, which gob builds in memory, and version 1 was the bare
// gob. Files of earlier versions are refused, naming their version (a results folder trains such
// a model again).
const (
	modelMagic      = "SBWBmod4"
	checkpointMagic = "SBWBckp3"
	trailerSize     = 12
	headerLenSize   = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// content is the header of a checksummed file when it is read into freshly allocated arrays.
type content interface {
	// arrays is called once the header is decoded, with the bytes of array data the file holds:
	// it checks the header and returns the arrays its values are read into, in order, each a
	// []float32, []float64 or []int32 of the length the header gives.
	arrays(bytes int64) ([]any, error)
}

// countingWriter passes writes on and counts them into a hash.
type countingWriter struct {
	w io.Writer
	h hash.Hash32
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// chunk is the size of the buffer arrays are converted through.
const chunk = 64 << 10

// encodeHeader encodes the header of a file of the given magic. A model file's header is JSON,
// whose bytes depend on the header alone: gob numbers the types in the order the process first
// meets them and writes the numbers, so that a model saved by a process that had read a
// checkpoint before would differ from the same model saved by another process. A checkpoint's
// header is gob, which also holds what JSON cannot (a curve's non-finite values); a checkpoint is
// read back by this program alone, and its bytes need not be reproducible.
func encodeHeader(magic string, header any) ([]byte, error) {
	if magic == modelMagic {
		return json.Marshal(header)
	}
	var hb bytes.Buffer
	err := gob.NewEncoder(&hb).Encode(header)
	return hb.Bytes(), err
}

// decodeHeader decodes what encodeHeader encoded.
func decodeHeader(magic string, b []byte, header any) error {
	if magic == modelMagic {
		return json.Unmarshal(b, header)
	}
	return gob.NewDecoder(bytes.NewReader(b)).Decode(header)
}

// writeChecksummed writes header (see encodeHeader) and then arrays (raw) to path atomically,
// framed by magic and the checksummed trailer. Each array is a []float32, []float64 or []int32.
func writeChecksummed(path, magic string, header any, arrays []any) error {
	hbytes, err := encodeHeader(magic, header)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	hb := bytes.NewBuffer(hbytes)
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := &countingWriter{w: w, h: crc32.New(castagnoli)}
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(hb.Len()))
		if _, err := io.WriteString(cw, magic); err != nil {
			return err
		}
		start := cw.n
		if _, err := cw.Write(n[:]); err != nil {
			return err
		}
		if _, err := cw.Write(hb.Bytes()); err != nil {
			return err
		}
		buf := make([]byte, chunk)
		for _, a := range arrays {
			var err error
			switch d := a.(type) {
			case []float32:
				err = putArray(cw, buf, d, 4, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) })
			case []float64:
				err = putArray(cw, buf, d, 8, func(b []byte, v float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(v)) })
			case []int32:
				err = putArray(cw, buf, d, 4, func(b []byte, v int32) { binary.LittleEndian.PutUint32(b, uint32(v)) })
			default:
				err = fmt.Errorf("models: cannot store a %T", a)
			}
			if err != nil {
				return err
			}
		}
		var trailer [trailerSize]byte
		binary.LittleEndian.PutUint64(trailer[:8], uint64(cw.n-start))
		cw.h.Write(trailer[:8])
		binary.LittleEndian.PutUint32(trailer[8:], cw.h.Sum32())
		_, err := w.Write(trailer[:])
		return err
	})
}

// putArray writes d, size bytes an element encoded by put, to w through buf.
func putArray[E any](w io.Writer, buf []byte, d []E, size int, put func([]byte, E)) error {
	for len(d) > 0 {
		n := min(len(d), len(buf)/size)
		for i, v := range d[:n] {
			put(buf[i*size:], v)
		}
		if _, err := w.Write(buf[:n*size]); err != nil {
			return err
		}
		d = d[n:]
	}
	return nil
}

// getArray fills d, size bytes an element decoded by get, from r through buf.
func getArray[E any](r io.Reader, buf []byte, d []E, size int, get func([]byte) E) error {
	for len(d) > 0 {
		n := min(len(d), len(buf)/size)
		if _, err := io.ReadFull(r, buf[:n*size]); err != nil {
			return err
		}
		for i := range d[:n] {
			d[i] = get(buf[i*size:])
		}
		d = d[n:]
	}
	return nil
}

// arrayBytes returns the bytes that the arrays occupy in a file.
func arrayBytes(arrays []any) (int64, error) {
	var n int64
	for _, a := range arrays {
		switch d := a.(type) {
		case []float32:
			n += 4 * int64(len(d))
		case []float64:
			n += 8 * int64(len(d))
		case []int32:
			n += 4 * int64(len(d))
		default:
			return 0, fmt.Errorf("models: cannot read into a %T", a)
		}
	}
	return n, nil
}

// readChecksummed reads a file written by writeChecksummed with the given magic: the header into
// header, then the arrays into those that arrays returns (see content.arrays). What names the
// kind of file in errors, and every error names the file. The checksum is verified before the
// header is decoded or anything is read into the arrays; only an I/O error or the file changing
// while it is read can leave them partly filled (an error too).
func readChecksummed(path, magic, what string, header any, arrays func(int64) ([]any, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return decodeFrom(path, f, st.Size(), magic, what, header, arrays)
}

// decodeChecksummed decodes the contents b of the file path into v, allocating its arrays.
func decodeChecksummed(path string, b []byte, magic, what string, v content) error {
	return decodeFrom(path, bytes.NewReader(b), int64(len(b)), magic, what, v, v.arrays)
}

// UnreadableError is a file that cannot be read as a file of its kind and version: it is corrupt
// (it fails its checksum, or is cut short) or of another version. Nothing has been read from it.
type UnreadableError struct {
	Path, Reason string
}

func (e *UnreadableError) Error() string { return e.Path + ": " + e.Reason }

// VerifyCheckpoint verifies the checksum and version of the checkpoint file at path, reading
// nothing out of it: a corrupt file, or one of another version, is an *UnreadableError, and a
// missing one fs.ErrNotExist. A caller treats an unreadable checkpoint like a missing one (see
// TrainResumable, which refuses it).
func VerifyCheckpoint(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, _, err = verify(path, f, st.Size(), checkpointMagic, "checkpoint")
	return err
}

// verify checks the magic, the length and the checksum of the size bytes of r, the file path
// holding a file of the kind what, and returns the file's first bytes (its magic) and trailer.
func verify(path string, r io.ReaderAt, size int64, magic, what string) (head []byte, trailer [trailerSize]byte, err error) {
	unreadable := func(format string, a ...any) error {
		return &UnreadableError{Path: path, Reason: fmt.Sprintf(format, a...)}
	}
	corrupt := func(format string, a ...any) error {
		return unreadable("corrupt %s file: %s", what, fmt.Sprintf(format, a...))
	}
	head = make([]byte, len(magic))
	if _, err := r.ReadAt(head, 0); err != nil && size >= int64(len(magic)) {
		return nil, trailer, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case size >= int64(len(magic)) && string(head) != magic && string(head[:len(magic)-1]) == magic[:len(magic)-1]:
		return nil, trailer, unreadable("not a %s file of this version (written in format %q, this version reads %q)", what, head, magic)
	case size < int64(len(magic)) || string(head) != magic:
		return nil, trailer, unreadable("not a %s file of this version (no %q header)", what, magic)
	case size < int64(len(magic)+headerLenSize+trailerSize):
		return nil, trailer, corrupt("%d bytes, too short to hold a header and a trailer", size)
	}
	if _, err := r.ReadAt(trailer[:], size-trailerSize); err != nil {
		return nil, trailer, fmt.Errorf("%s: %w", path, err)
	}
	payload := size - trailerSize - int64(len(magic))
	if n := binary.LittleEndian.Uint64(trailer[:8]); n != uint64(payload) {
		return nil, trailer, corrupt("the trailer gives a payload of %d bytes, the file holds %d", n, payload)
	}
	want := binary.LittleEndian.Uint32(trailer[8:])
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size-4)); err != nil {
		return nil, trailer, fmt.Errorf("%s: %w", path, err)
	}
	if got := h.Sum32(); got != want {
		return nil, trailer, corrupt("CRC-32C %08x, the file records %08x", got, want)
	}
	return head, trailer, nil
}

// decodeFrom is readChecksummed on the size bytes of r.
func decodeFrom(path string, r io.ReaderAt, size int64, magic, what string, header any, arrays func(int64) ([]any, error)) error {
	corrupt := func(format string, a ...any) error {
		return fmt.Errorf("%s: corrupt %s file: %s", path, what, fmt.Sprintf(format, a...))
	}
	head, trailer, err := verify(path, r, size, magic, what)
	if err != nil {
		return err
	}
	payload := size - trailerSize - int64(len(magic))
	want := binary.LittleEndian.Uint32(trailer[8:])
	h := crc32.New(castagnoli)

	// The checksum holds: decode, checksumming again what is read (the file may change between
	// the two passes).
	h.Write(head)
	br := bufio.NewReaderSize(io.TeeReader(io.NewSectionReader(r, int64(len(magic)), payload), h), chunk)
	var n [headerLenSize]byte
	if _, err := io.ReadFull(br, n[:]); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	hlen := binary.LittleEndian.Uint64(n[:])
	if hlen > uint64(payload-headerLenSize) {
		return corrupt("a header of %d bytes in a payload of %d", hlen, payload)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(br, hb); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := decodeHeader(magic, hb, header); err != nil {
		return corrupt("%v", err)
	}
	left := payload - headerLenSize - int64(hlen)
	dst, err := arrays(left)
	if err != nil {
		return err
	}
	if need, err := arrayBytes(dst); err != nil {
		return err
	} else if need != left {
		return corrupt("the header describes %d bytes of arrays, the file holds %d", need, left)
	}
	buf := make([]byte, chunk)
	for _, a := range dst {
		switch d := a.(type) {
		case []float32:
			err = getArray(br, buf, d, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
		case []float64:
			err = getArray(br, buf, d, 8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) })
		case []int32:
			err = getArray(br, buf, d, 4, func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) })
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	h.Write(trailer[:8])
	if got := h.Sum32(); got != want {
		return fmt.Errorf("%s: the %s file changed while it was read (CRC-32C %08x, then %08x)", path, what, want, got)
	}
	return nil
}

// savedModel is the header of a model file; its parameters' values follow it, in order.
type savedModel struct {
	Settings Settings
	Dtype    string
	Params   []savedParam
}

// savedParam names a stored array; its values are stored after the file's header.
type savedParam struct {
	Name  string
	Shape []int
	// Rows, in a checkpoint's optimiser state of a table, are the rows stored (ascending), when
	// only they have a non-zero state; nil: every row is.
	Rows []int32 `json:",omitempty"`
	data any     // []float32 or []float64; not in the header
}

// size returns the number of values of the parameter, or -1 for a shape with a negative
// dimension or more values than limit.
func (sp savedParam) size(limit int64) int64 {
	n := int64(1)
	for _, d := range sp.Shape {
		if d < 0 || (d > 0 && n > limit/int64(d)) {
			return -1
		}
		n *= int64(d)
	}
	return n
}

// saved returns the model's settings and parameters as a savedModel (sharing the parameters'
// memory).
func (m *Model) saved() savedModel {
	sm := savedModel{Settings: m.Settings(), Dtype: m.dt.String()}
	for _, p := range m.params() {
		sm.Params = append(sm.Params, savedParam{Name: p.name, Shape: p.shape, data: p.data})
	}
	return sm
}

// values returns the parameters' values in order.
func (sm *savedModel) values() []any {
	vs := make([]any, len(sm.Params))
	for i, sp := range sm.Params {
		vs[i] = sp.data
	}
	return vs
}

// arrays allocates the parameters of a decoded header (content.arrays).
func (sm *savedModel) arrays(bytes int64) ([]any, error) {
	elem := map[string]int64{"float32": 4, "float64": 8}[sm.Dtype]
	if elem == 0 {
		return nil, fmt.Errorf("models: parameters of type %q", sm.Dtype)
	}
	for i, sp := range sm.Params {
		n := sp.size(bytes / elem)
		if n < 0 {
			return nil, fmt.Errorf("models: parameter %s of shape %v holds more than the file's %d bytes", sp.Name, sp.Shape, bytes)
		}
		bytes -= n * elem
		if elem == 4 {
			sm.Params[i].data = make([]float32, n)
		} else {
			sm.Params[i].data = make([]float64, n)
		}
	}
	return sm.values(), nil
}

// Save writes the model's settings and parameters (a learned temperature included) to path,
// atomically (a temporary file in the same directory, then a rename) and with a checksum that
// Load verifies. The parameters are streamed to the file: saving allocates nothing in
// proportion to the model. Optimiser state is not saved: a saved model is for evaluation
// (training state is in checkpoints, see TrainSettings.CheckpointEvery).
func (m *Model) Save(path string) error {
	sm := m.saved()
	return writeChecksummed(path, modelMagic, sm, sm.values())
}

// Load reads parameters written by Save into m, which must have been built by New with the same
// settings, dtype and dataset features (every parameter's name and shape must match). A learned
// temperature in the file is added to m. The parameters are read straight into m's, after the
// whole file's checksum is verified: a file whose checksum does not match, as after a flipped
// bit, or that does not fit m, is an error naming the file, and m is left unchanged. (Only an
// I/O error, or the file being rewritten in place while it is read, can leave m partly loaded;
// both are errors too.)
func (m *Model) Load(path string) error {
	var sm savedModel
	var logTau *param
	err := readChecksummed(path, modelMagic, "model", &sm, func(int64) ([]any, error) {
		ps, tau, err := m.fit(path, sm)
		logTau = tau
		return paramData(ps), err
	})
	if err != nil {
		return err
	}
	if logTau != nil {
		m.logTau = logTau
	}
	return nil
}

// paramData returns the parameters' values.
func paramData(ps []*param) []any {
	d := make([]any, len(ps))
	for i, p := range ps {
		d[i] = p.data
	}
	return d
}

// fit checks that the parameters of the header sm fit m and returns m's parameters they are
// read into: m's own, and a learned temperature that m does not have yet (returned as tau, for
// the caller to add to m once it is read).
func (m *Model) fit(path string, sm savedModel) (ps []*param, tau *param, err error) {
	switch {
	case sm.Dtype != m.dt.String():
		return nil, nil, fmt.Errorf("%s: parameters are %s, the model is %s", path, sm.Dtype, m.dt)
	case !reflect.DeepEqual(sm.Settings, m.s):
		return nil, nil, fmt.Errorf("%s: saved with model settings %+v, the model has %+v", path, sm.Settings, m.s)
	}
	ps = m.params()
	if m.logTau == nil && len(sm.Params) == len(ps)+1 && sm.Params[len(ps)].Name == logTemperatureName {
		tau = m.newParam(logTemperatureName, 1)
		ps = append(ps, tau)
	}
	if len(sm.Params) != len(ps) {
		return nil, nil, fmt.Errorf("%s: %d parameter arrays, the model has %d", path, len(sm.Params), len(ps))
	}
	for i, p := range ps {
		sp := sm.Params[i]
		if sp.Name != p.name || !slices.Equal(sp.Shape, p.shape) {
			return nil, nil, fmt.Errorf("%s: parameter %d is %s %v, the model has %s %v", path, i, sp.Name, sp.Shape, p.name, p.shape)
		}
	}
	return ps, tau, nil
}
