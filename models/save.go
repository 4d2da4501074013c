package models

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"reflect"
	"slices"

	"github.com/samplingbias/workbench/internal/atomicfile"
)

// Files written by Save and by training checkpoints have one layout:
//
//	magic    8 bytes: the kind and version of the file (modelMagic, checkpointMagic)
//	payload  gob encoding of the content
//	length   8 bytes: the payload's length, little-endian
//	checksum 4 bytes: CRC-32C (Castagnoli) of magic, payload and length, little-endian
//
// The trailer is written after the payload, which is streamed to the file without being held
// in memory. CRC-32C detects every single-bit flip and every burst of up to 32 bits.
const (
	modelMagic      = "SBWBmod2" // version 2: version 1 was the bare gob of savedModel
	checkpointMagic = "SBWBckp1"
	trailerSize     = 12
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

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

// writeChecksummed writes v (gob) to path atomically, framed by magic and the checksummed trailer.
func writeChecksummed(path, magic string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := &countingWriter{w: w, h: crc32.New(castagnoli)}
		if _, err := io.WriteString(cw, magic); err != nil {
			return err
		}
		start := cw.n
		if err := gob.NewEncoder(cw).Encode(v); err != nil {
			return err
		}
		var trailer [trailerSize]byte
		binary.LittleEndian.PutUint64(trailer[:8], uint64(cw.n-start))
		cw.h.Write(trailer[:8])
		binary.LittleEndian.PutUint32(trailer[8:], cw.h.Sum32())
		_, err := w.Write(trailer[:])
		return err
	})
}

// readChecksummed reads a file written by writeChecksummed with the given magic into v; what
// names the kind of file in errors. Every error names the file.
func readChecksummed(path, magic, what string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return decodeChecksummed(path, b, magic, what, v)
}

// decodeChecksummed is readChecksummed on the file's contents b.
func decodeChecksummed(path string, b []byte, magic, what string, v any) error {
	if len(b) < len(magic)+trailerSize || string(b[:len(magic)]) != magic {
		return fmt.Errorf("%s: not a %s file of this version (no %q header)", path, what, magic)
	}
	body, trailer := b[:len(b)-trailerSize], b[len(b)-trailerSize:]
	if n := binary.LittleEndian.Uint64(trailer[:8]); n != uint64(len(body)-len(magic)) {
		return fmt.Errorf("%s: corrupt %s file: the trailer gives a payload of %d bytes, the file holds %d", path, what, n, len(body)-len(magic))
	}
	h := crc32.New(castagnoli)
	h.Write(b[:len(b)-4])
	if got, want := h.Sum32(), binary.LittleEndian.Uint32(trailer[8:]); got != want {
		return fmt.Errorf("%s: corrupt %s file: CRC-32C %08x, the file records %08x", path, what, got, want)
	}
	if err := gob.NewDecoder(bytes.NewReader(body[len(magic):])).Decode(v); err != nil {
		return fmt.Errorf("%s: corrupt %s file: %w", path, what, err)
	}
	return nil
}

// savedModel is the payload of a model file.
type savedModel struct {
	Settings Settings
	Dtype    string
	Params   []savedParam
}

type savedParam struct {
	Name  string
	Shape []int
	F32   []float32
	F64   []float64
}

// saved returns the model's settings and parameters as a savedModel (sharing the parameters'
// memory).
func (m *Model) saved() savedModel {
	sm := savedModel{Settings: m.Settings(), Dtype: m.dt.String()}
	for _, p := range m.params() {
		sp := savedParam{Name: p.name, Shape: p.shape}
		switch d := p.data.(type) {
		case []float32:
			sp.F32 = d
		case []float64:
			sp.F64 = d
		}
		sm.Params = append(sm.Params, sp)
	}
	return sm
}

// Save writes the model's settings and parameters (a learned temperature included) to path,
// atomically (a temporary file in the same directory, then a rename) and with a checksum that
// Load verifies. Optimiser state is not saved: a saved model is for evaluation (training state
// is in checkpoints, see TrainSettings.CheckpointEvery).
func (m *Model) Save(path string) error {
	return writeChecksummed(path, modelMagic, m.saved())
}

// Load reads parameters written by Save into m, which must have been built by New with the same
// settings, dtype and dataset features (every parameter's name and shape must match). A learned
// temperature in the file is added to m. A file whose checksum does not match, as after a
// flipped bit, is an error naming the file, and m is left unchanged.
func (m *Model) Load(path string) error {
	var sm savedModel
	if err := readChecksummed(path, modelMagic, "model", &sm); err != nil {
		return err
	}
	return m.restore(path, sm)
}

// restore copies the parameters of sm into m after checking that they fit.
func (m *Model) restore(path string, sm savedModel) error {
	switch {
	case sm.Dtype != m.dt.String():
		return fmt.Errorf("%s: parameters are %s, the model is %s", path, sm.Dtype, m.dt)
	case !reflect.DeepEqual(sm.Settings, m.s):
		return fmt.Errorf("%s: saved with model settings %+v, the model has %+v", path, sm.Settings, m.s)
	}
	ps := m.params()
	var logTau *param // a learned temperature the model does not have yet
	if m.logTau == nil && len(sm.Params) == len(ps)+1 && sm.Params[len(ps)].Name == logTemperatureName {
		logTau = m.newParam(logTemperatureName, 1)
		ps = append(ps, logTau)
	}
	if len(sm.Params) != len(ps) {
		return fmt.Errorf("%s: %d parameter arrays, the model has %d", path, len(sm.Params), len(ps))
	}
	for i, p := range ps {
		sp := sm.Params[i]
		if sp.Name != p.name || !slices.Equal(sp.Shape, p.shape) {
			return fmt.Errorf("%s: parameter %d is %s %v, the model has %s %v", path, i, sp.Name, sp.Shape, p.name, p.shape)
		}
		got := len(sp.F32)
		if _, ok := p.data.([]float64); ok {
			got = len(sp.F64)
		}
		if got != p.size() {
			return fmt.Errorf("%s: parameter %s has %d values, want %d", path, p.name, got, p.size())
		}
	}
	if logTau != nil {
		m.logTau = logTau
	}
	for i, p := range ps {
		switch d := p.data.(type) {
		case []float32:
			copy(d, sm.Params[i].F32)
		case []float64:
			copy(d, sm.Params[i].F64)
		}
	}
	return nil
}
