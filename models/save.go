package models

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"

	"github.com/samplingbias/workbench/internal/atomicfile"
)

// File format of Save: a gob-encoded savedModel.
const (
	fileFormat  = "samplingbias-workbench two-tower model"
	fileVersion = 1
)

type savedModel struct {
	Format   string
	Version  int
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

// Save writes the model's settings and parameters to path (atomically: a temporary file in the
// same directory, then a rename). Optimiser state is not saved: a saved model is for evaluation.
func (m *Model) Save(path string) error {
	sm := savedModel{Format: fileFormat, Version: fileVersion, Settings: m.Settings(), Dtype: m.dt.String()}
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
	return atomicfile.Write(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(sm) })
}

// Load reads parameters written by Save into m, which must have been built by New with the same
// settings, dtype and dataset features (every parameter's name and shape must match). A learned
// temperature in the file is added to m.
func (m *Model) Load(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var sm savedModel
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&sm); err != nil {
		return fmt.Errorf("%s: not a saved model: %w", path, err)
	}
	switch {
	case sm.Format != fileFormat:
		return fmt.Errorf("%s: not a saved model (format %q)", path, sm.Format)
	case sm.Version != fileVersion:
		return fmt.Errorf("%s: format version %d, this build reads %d", path, sm.Version, fileVersion)
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
