package models

import (
	"fmt"
	"math"
	"strings"
)

// Optimisers.
const (
	OptimizerSGD      = "sgd"
	OptimizerMomentum = "momentum"
	OptimizerAdagrad  = "adagrad"
	OptimizerAdam     = "adam"
)

// Batch orders.
const (
	OrderShuffled   = "shuffled"
	OrderSequential = "sequential"
)

// Settings is the [model] section of a config: the architecture of the two towers. The zero value
// is Yi et al.'s Wikipedia model: 64-dimensional input embeddings, towers [512, 128] with ReLU,
// L2-normalised outputs.
type Settings struct {
	// EmbeddingDim is the dimension of every embedding table; default 64.
	EmbeddingDim int `toml:"embedding_dim"`
	// Hidden lists the output sizes of the layers of each tower's MLP; the last one is the
	// dimension of the embeddings u and v. Default [512, 128] (Yi et al. section 6, Wikipedia).
	// A tower has at least one layer, so hidden = [] written in a config is an error rather than
	// "no hidden layer": hidden = [d] is the shallowest tower, one linear layer to dimension d.
	Hidden []int `toml:"hidden"`
	// Activation follows every layer but the last: "relu" (default), "identity", "tanh",
	// "gelu" or "swish" (see the Activation constants).
	Activation Activation `toml:"activation"`
	// Residual adds every layer's input to its output, h ← h + act(h·W + b), for every layer
	// after the first (the first maps the input features to the hidden width). It needs at least
	// two layers, all of the same size. Default false.
	Residual bool `toml:"residual"`
	// ShareEmbeddings makes the query and item towers share the embedding table of equally named
	// fields, as Yi et al. do (section 5 and 6). Default false: every field of every tower has
	// its own table. The MLPs are never shared.
	ShareEmbeddings bool `toml:"share_embeddings"`
	// InitStd is the standard deviation of the normal initialisation of embedding rows; default
	// 0.1. MLP weights use Glorot-uniform initialisation and zero biases.
	InitStd float64 `toml:"init_std"`
	// NormEpsilon is ε of the L2 normalisation u/sqrt(‖u‖²+ε²); default 1e-6.
	NormEpsilon float64 `toml:"norm_epsilon"`
}

// Resolve fills the zero fields with their defaults and validates the settings.
func (s *Settings) Resolve() error {
	if s.EmbeddingDim == 0 {
		s.EmbeddingDim = 64
	}
	if len(s.Hidden) == 0 {
		s.Hidden = []int{512, 128}
	}
	if s.Activation == "" {
		s.Activation = ActivationReLU
	}
	if s.InitStd == 0 {
		s.InitStd = 0.1
	}
	if s.NormEpsilon == 0 {
		s.NormEpsilon = 1e-6
	}
	if s.EmbeddingDim < 0 {
		return fmt.Errorf("embedding_dim: must be positive, got %d", s.EmbeddingDim)
	}
	for i, h := range s.Hidden {
		if h <= 0 {
			return fmt.Errorf("hidden: layer %d must have a positive size, got %d", i, h)
		}
	}
	if err := oneOf("activation", string(s.Activation), activationNames()...); err != nil {
		return err
	}
	if s.Residual {
		if len(s.Hidden) < 2 {
			return fmt.Errorf("residual: needs at least two layers (hidden = %v): the first maps the input to the hidden width", s.Hidden)
		}
		for i, h := range s.Hidden[1:] {
			if h != s.Hidden[0] {
				return fmt.Errorf("residual: needs layers of equal sizes, hidden = %v has %d at layer %d and %d at layer 0", s.Hidden, h, i+1, s.Hidden[0])
			}
		}
	}
	if !(s.InitStd > 0) || math.IsInf(s.InitStd, 0) {
		return fmt.Errorf("init_std: must be a positive number, got %v", s.InitStd)
	}
	if !(s.NormEpsilon > 0) || math.IsInf(s.NormEpsilon, 0) {
		return fmt.Errorf("norm_epsilon: must be a positive number, got %v", s.NormEpsilon)
	}
	return nil
}

// TrainSettings is the [train] section of a config. The zero value trains 10 epochs of shuffled
// batches of 256 with Adam at learning rate 0.001, without gradient clipping.
type TrainSettings struct {
	// Optimizer is "adam" (default), "adagrad", "sgd" or "momentum" (SGD with momentum). Dense
	// weights are updated every step; embedding rows only when the batch uses them (lazy
	// Adam/Adagrad/momentum: the optimiser state of a row moves only when the row is updated).
	Optimizer string `toml:"optimizer"`
	// LearningRate is the step size; default 0.001 for adam, 0.05 for adagrad, 0.1 for sgd and
	// momentum.
	LearningRate float64 `toml:"learning_rate"`
	// Momentum is μ of optimizer "momentum" (v ← μv + g, w ← w − lr·v); default 0.9. Setting it
	// for another optimizer is an error.
	Momentum float64 `toml:"momentum"`
	// Beta1 and Beta2 are Adam's moment decays; defaults 0.9 and 0.999. Adam only.
	Beta1 float64 `toml:"beta1"`
	Beta2 float64 `toml:"beta2"`
	// Epsilon is the denominator guard of Adam (default 1e-8) and Adagrad (default 1e-10).
	Epsilon float64 `toml:"epsilon"`
	// Clip is the maximum global L2 norm of the gradient (all dense weights and all embedding
	// rows of the step together); a larger gradient is scaled down to it. Default 0: no clipping.
	Clip float64 `toml:"clip"`
	// BatchSize is the number of training interactions per step (B); default 256. The last
	// incomplete batch of every epoch is dropped.
	BatchSize int `toml:"batch_size"`
	// Epochs is the number of passes over the training interactions; default 10 unless Steps is
	// set. Set Epochs or Steps, not both.
	Epochs int `toml:"epochs"`
	// Steps, when positive, is the exact number of training steps (epochs repeat as needed).
	Steps int `toml:"steps"`
	// Order is "shuffled" (default: a new seeded permutation every epoch) or "sequential" (by
	// day, then timestamp, then data order: Yi et al.'s sequential training, which the streaming
	// estimators need to track a drifting distribution).
	Order string `toml:"order"`
	// LogEvery is the number of steps per point of the training curve; default 100.
	LogEvery int `toml:"log_every"`
	// CheckpointEvery is the number of steps between two training checkpoints when training
	// writes them (TrainResumable with a checkpoint file); default 0: at the end of every
	// epoch. A checkpoint is also written after the last step.
	CheckpointEvery int `toml:"checkpoint_every"`
	// LogSeconds is the minimum time between two plain progress lines when progress does not
	// go to a terminal; default 10.
	LogSeconds float64 `toml:"log_seconds"`
}

// Resolve fills the zero fields with their defaults and validates the settings.
func (s *TrainSettings) Resolve() error {
	if s.Optimizer == "" {
		s.Optimizer = OptimizerAdam
	}
	if err := oneOf("optimizer", s.Optimizer, OptimizerSGD, OptimizerMomentum, OptimizerAdagrad, OptimizerAdam); err != nil {
		return err
	}
	if s.LearningRate == 0 {
		switch s.Optimizer {
		case OptimizerAdam:
			s.LearningRate = 0.001
		case OptimizerAdagrad:
			s.LearningRate = 0.05
		default:
			s.LearningRate = 0.1
		}
	}
	if s.Optimizer == OptimizerMomentum && s.Momentum == 0 {
		s.Momentum = 0.9
	}
	if s.Optimizer == OptimizerAdam {
		if s.Beta1 == 0 {
			s.Beta1 = 0.9
		}
		if s.Beta2 == 0 {
			s.Beta2 = 0.999
		}
	}
	if s.Epsilon == 0 {
		switch s.Optimizer {
		case OptimizerAdam:
			s.Epsilon = 1e-8
		case OptimizerAdagrad:
			s.Epsilon = 1e-10
		}
	}
	if s.BatchSize == 0 {
		s.BatchSize = 256
	}
	if s.Epochs == 0 && s.Steps == 0 {
		s.Epochs = 10
	}
	if s.Order == "" {
		s.Order = OrderShuffled
	}
	if s.LogEvery == 0 {
		s.LogEvery = 100
	}
	if s.LogSeconds == 0 {
		s.LogSeconds = 10
	}

	switch {
	case !(s.LearningRate > 0) || math.IsInf(s.LearningRate, 0):
		return fmt.Errorf("learning_rate: must be a positive number, got %v", s.LearningRate)
	case s.Momentum != 0 && s.Optimizer != OptimizerMomentum:
		return fmt.Errorf("momentum: only used by optimizer %q, got optimizer %q", OptimizerMomentum, s.Optimizer)
	case !(s.Momentum >= 0 && s.Momentum < 1):
		return fmt.Errorf("momentum: must be in [0, 1), got %v", s.Momentum)
	case (s.Beta1 != 0 || s.Beta2 != 0) && s.Optimizer != OptimizerAdam:
		return fmt.Errorf("beta1: beta1 and beta2 are only used by optimizer %q, got optimizer %q", OptimizerAdam, s.Optimizer)
	case !(s.Beta1 >= 0 && s.Beta1 < 1):
		return fmt.Errorf("beta1: must be in [0, 1), got %v", s.Beta1)
	case !(s.Beta2 >= 0 && s.Beta2 < 1):
		return fmt.Errorf("beta2: must be in [0, 1), got %v", s.Beta2)
	case s.Epsilon != 0 && s.Optimizer != OptimizerAdam && s.Optimizer != OptimizerAdagrad:
		return fmt.Errorf("epsilon: only used by optimizers %q and %q, got optimizer %q", OptimizerAdam, OptimizerAdagrad, s.Optimizer)
	case !(s.Epsilon >= 0) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("epsilon: must be a positive number, got %v", s.Epsilon)
	case !(s.Clip >= 0) || math.IsInf(s.Clip, 0):
		return fmt.Errorf("clip: must be >= 0 (0 = no clipping), got %v", s.Clip)
	case s.BatchSize < 1:
		return fmt.Errorf("batch_size: must be positive, got %d", s.BatchSize)
	case s.Epochs < 0:
		return fmt.Errorf("epochs: must be >= 0, got %d", s.Epochs)
	case s.Steps < 0:
		return fmt.Errorf("steps: must be >= 0, got %d", s.Steps)
	case s.Epochs > 0 && s.Steps > 0:
		return fmt.Errorf("steps: set epochs or steps, not both (epochs %d, steps %d)", s.Epochs, s.Steps)
	case s.LogEvery < 1:
		return fmt.Errorf("log_every: must be positive, got %d", s.LogEvery)
	case s.CheckpointEvery < 0:
		return fmt.Errorf("checkpoint_every: must be >= 0 (0 = every epoch), got %d", s.CheckpointEvery)
	case !(s.LogSeconds > 0) || math.IsInf(s.LogSeconds, 0):
		return fmt.Errorf("log_seconds: must be a positive number, got %v", s.LogSeconds)
	}
	return oneOf("order", s.Order, OrderShuffled, OrderSequential)
}

// oneOf checks an enum value.
func oneOf(key, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s: unknown %q (allowed: %s)", key, v, strings.Join(allowed, ", "))
}
