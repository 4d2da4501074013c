package models

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/losses"
)

// logTemperatureName is the name of the learned log τ among the parameters (and in model.bin).
const logTemperatureName = "log_temperature"

// Temperature returns the learned temperature τ = exp(log τ) of a model trained with
// losses.Settings.LearnTemperature, and true; 0 and false for a model without one (its loss's τ
// is then the configured losses.Settings.Temperature). Evaluation ranks by the logits ⟨u, v⟩/τ.
func (m *Model) Temperature() (float64, bool) {
	if m.logTau == nil {
		return 0, false
	}
	return math.Exp(m.logTau.at(0)), true
}

// at returns element i of p as a float64.
func (p *param) at(i int) float64 {
	if d, ok := p.data.([]float64); ok {
		return d[i]
	}
	return float64(p.data.([]float32)[i])
}

// trainLoss builds the loss of a training run. With ls.LearnTemperature the model gets a
// learnable log τ (initialised at log ls.Temperature unless it has one already, e.g. when
// training continues), which the training graph passes to the loss as Inputs.LogTemperature:
// the loss's own expression divides by τ = exp(log τ), wherever the correction is applied
// (correct_at), and autodiff carries the gradient into log τ.
func trainLoss(m *Model, ls losses.Settings, g candidates.Geometry) (*losses.Loss, error) {
	loss, err := losses.New(ls, g, m.dt)
	if err != nil {
		return nil, err
	}
	r := loss.Settings()
	if !r.LearnTemperature {
		if m.logTau != nil {
			return nil, fmt.Errorf("learn_temperature: the model has a learned temperature (τ = %g); continue training it with learn_temperature = true", math.Exp(m.logTau.at(0)))
		}
		return loss, nil
	}
	if m.logTau == nil {
		m.logTau = m.newParam(logTemperatureName, 1)
		m.logTau.set(0, math.Log(r.Temperature))
	}
	return loss, nil
}

// set sets element i of p.
func (p *param) set(i int, v float64) {
	if d, ok := p.data.([]float64); ok {
		d[i] = v
		return
	}
	p.data.([]float32)[i] = float32(v)
}

// logTemperatureNode returns the scalar node log τ of the learned temperature over the node
// bound to the model's parameter (a vector of one), and that parameter node.
func logTemperatureNode[T float](m *Model, g *gorgonia.ExprGraph) (*gorgonia.Node, *gorgonia.Node, error) {
	lt := paramNode[T](g, m.dt, m.logTau)
	s, err := gorgonia.Sum(lt)
	if err != nil {
		return nil, nil, fmt.Errorf("models: the learned temperature's node: %w", err)
	}
	return s, lt, nil
}
