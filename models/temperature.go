package models

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"

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
// training continues), and the loss is built at τ = 1: the training graph divides the scores by
// exp(log τ) before the loss (scaledScores), so that the logits are s/τ as with a fixed τ.
// A correction applied to the scores rather than the logits (correct_at = "scores", (s + c)/τ)
// would need τ inside the loss and is refused.
func trainLoss(m *Model, ls losses.Settings) (*losses.Loss, error) {
	loss, err := losses.New(ls, m.dt)
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
	if r.CorrectAt == losses.CorrectScores {
		return nil, fmt.Errorf("learn_temperature: not with correct_at = %q (τ would have to divide the correction inside the loss); use correct_at = %q", r.CorrectAt, losses.CorrectLogits)
	}
	if m.logTau == nil {
		m.logTau = m.newParam(logTemperatureName, 1)
		m.logTau.set(0, math.Log(r.Temperature))
	}
	r.LearnTemperature, r.Temperature = false, 1
	return losses.New(r, m.dt)
}

// set sets element i of p.
func (p *param) set(i int, v float64) {
	if d, ok := p.data.([]float64); ok {
		d[i] = v
		return
	}
	p.data.([]float32)[i] = float32(v)
}

// scaledScores returns the node scores·exp(−log τ) over the node of the learned log τ, and that
// node (bound to the model's parameter).
func scaledScores[T float](m *Model, scores *gorgonia.Node) (*gorgonia.Node, *gorgonia.Node, error) {
	lt := paramNode[T](scores.Graph(), m.dt, m.logTau)
	s, err := gorgonia.Sum(lt)
	if err == nil {
		s, err = gorgonia.Neg(s)
	}
	if err == nil {
		s, err = gorgonia.Exp(s)
	}
	if err == nil {
		s, err = gorgonia.Mul(scores, s)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("models: dividing the scores by the learned temperature: %w", err)
	}
	return s, lt, nil
}
