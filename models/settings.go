package models

import (
	"fmt"
	"slices"

	"github.com/samplingbias/workbench/internal/setting"
)

// Optimizer is the optimisation algorithm of TrainSettings.Optimizer.
type Optimizer string

// Optimisers. The table optimizers declares each one with its defaults.
const (
	OptimizerSGD      Optimizer = "sgd"
	OptimizerMomentum Optimizer = "momentum"
	OptimizerAdagrad  Optimizer = "adagrad"
	OptimizerAdam     Optimizer = "adam"
)

// optimizerDef declares an optimiser: its name and its defaults (epsilon 0: it has none).
type optimizerDef struct {
	name                  Optimizer
	learningRate, epsilon float64
}

// optimizers is the one place an optimiser is declared: its name (TrainSettings.Resolve and
// UnmarshalText accept the names listed here), its default learning rate and its default
// epsilon (0: it has none).
var optimizers = []optimizerDef{
	{OptimizerSGD, 0.1, 0},
	{OptimizerMomentum, 0.1, 0},
	{OptimizerAdagrad, 0.05, 1e-10},
	{OptimizerAdam, 0.001, 1e-8},
}

func optimizerNames() []Optimizer {
	return setting.Column(optimizers, func(o optimizerDef) Optimizer { return o.name })
}

// UnmarshalText sets o from its name; an unknown name is an error that lists the allowed ones.
func (o *Optimizer) UnmarshalText(b []byte) error { return setting.Unmarshal(o, b, optimizerNames()) }

// Order is the order of the training batches, TrainSettings.Order.
type Order string

// Batch orders.
const (
	OrderShuffled   Order = "shuffled"
	OrderSequential Order = "sequential"
)

var orders = []Order{OrderShuffled, OrderSequential}

// UnmarshalText sets o from its name; an unknown name is an error that lists the allowed ones.
func (o *Order) UnmarshalText(b []byte) error { return setting.Unmarshal(o, b, orders) }

// UnmarshalText sets a from its name; an unknown name is an error that lists the allowed ones.
func (a *Activation) UnmarshalText(b []byte) error {
	return setting.Unmarshal(a, b, activationNames())
}

// Defaults of Settings and TrainSettings, filled in by Resolve; the per-optimiser defaults of
// the learning rate and epsilon are in the table of optimisers (see the Optimizer constants).
const (
	DefaultEmbeddingDim = 64
	DefaultActivation   = ActivationReLU
	DefaultInitStd      = 0.1
	DefaultNormEpsilon  = 1e-6
	DefaultOptimizer    = OptimizerAdam
	DefaultMomentum     = 0.9
	DefaultBeta1        = 0.9
	DefaultBeta2        = 0.999
	DefaultBatchSize    = 256
	DefaultEpochs       = 10
	DefaultOrder        = OrderShuffled
	DefaultLogEvery     = 100
	DefaultLogSeconds   = 10
)

// DefaultHidden returns the default Settings.Hidden, [512, 128] (Yi et al. section 6,
// Wikipedia).
func DefaultHidden() []int { return []int{512, 128} }

// Settings is the [model] section of a config: the architecture of the two towers. The zero value
// is Yi et al.'s Wikipedia model: DefaultEmbeddingDim-dimensional input embeddings, towers
// DefaultHidden() with DefaultActivation, L2-normalised outputs. Each field's default is the
// constant its comment names, the one place the value is written.
type Settings struct {
	// EmbeddingDim is the dimension of every embedding table; default DefaultEmbeddingDim.
	EmbeddingDim int `toml:"embedding_dim"`
	// Hidden lists the output sizes of the layers of each tower's MLP; the last one is the
	// dimension of the embeddings u and v. Default DefaultHidden() (Yi et al. section 6,
	// Wikipedia). A tower has at least one layer, so hidden = [] written in a config is an error
	// rather than "no hidden layer": hidden = [d] is the shallowest tower, one linear layer to
	// dimension d.
	Hidden []int `toml:"hidden"`
	// Activation follows every layer but the last: one of the Activation constants; default
	// DefaultActivation.
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
	// DefaultInitStd. MLP weights use Glorot-uniform initialisation and zero biases.
	InitStd float64 `toml:"init_std"`
	// NormEpsilon is ε of the L2 normalisation u/sqrt(‖u‖²+ε²); default DefaultNormEpsilon.
	NormEpsilon float64 `toml:"norm_epsilon"`
	// Sequence makes the query a history of the user's items rather than the user
	// (docs/encoders.md): the mean of its items' embeddings beside the user's features (Yi et
	// al.'s section 5), or SASRec, whose hidden state at a position is the query and whose items
	// are scored by their embeddings alone (Kang & McAuley). Default: none. With SASRec the
	// towers' MLP keys (hidden, activation, residual, share_embeddings, norm_epsilon) are not
	// used and must be left unset.
	Sequence SequenceSettings `toml:"sequence" json:",omitzero"`
}

// Resolve fills the zero fields with their defaults and validates the settings.
func (s *Settings) Resolve() error {
	if err := s.Sequence.Resolve(); err != nil {
		return fmt.Errorf("sequence.%w", err)
	}
	setting.Default(&s.EmbeddingDim, DefaultEmbeddingDim)
	setting.Default(&s.InitStd, DefaultInitStd)
	if s.Sequence.Encoder == EncoderSASRec {
		width := s.Sequence.checkWidth(s.EmbeddingDim)
		if width != nil {
			width = fmt.Errorf("sequence.%w", width)
		}
		only := func(key string, set bool) error {
			return setting.OnlyFor(key, set, false, "the towers' MLP is not used with sequence.encoder %q, whose query is SASRec's hidden state and whose items are their embeddings (Kang & McAuley)", EncoderSASRec)
		}
		return setting.First(
			setting.Positive("embedding_dim", s.EmbeddingDim),
			only("hidden", s.Hidden != nil),
			only("activation", s.Activation != ""),
			only("residual", s.Residual),
			only("share_embeddings", s.ShareEmbeddings),
			only("norm_epsilon", s.NormEpsilon != 0),
			setting.Positive("init_std", s.InitStd),
			width,
		)
	}
	if len(s.Hidden) == 0 {
		s.Hidden = DefaultHidden()
	}
	setting.Default(&s.Activation, DefaultActivation)
	setting.Default(&s.NormEpsilon, DefaultNormEpsilon)
	return setting.First(
		setting.Positive("embedding_dim", s.EmbeddingDim),
		checkHidden(s.Hidden),
		setting.OneOf("activation", s.Activation, activationNames()),
		s.checkResidual(),
		setting.Positive("init_std", s.InitStd),
		setting.Positive("norm_epsilon", s.NormEpsilon),
	)
}

// Dim is the dimension of the embeddings u and v of a model of the resolved settings: the last
// hidden size, or the embedding dimension with SASRec.
func (s *Settings) Dim() int {
	if s.Sequence.Encoder == EncoderSASRec {
		return s.EmbeddingDim
	}
	return s.Hidden[len(s.Hidden)-1]
}

func checkHidden(hidden []int) error {
	for i, h := range hidden {
		if h <= 0 {
			return fmt.Errorf("hidden: layer %d must have a positive size, got %d", i, h)
		}
	}
	return nil
}

func (s *Settings) checkResidual() error {
	if !s.Residual {
		return nil
	}
	if len(s.Hidden) < 2 {
		return fmt.Errorf("residual: needs at least two layers (hidden = %v): the first maps the input to the hidden width", s.Hidden)
	}
	for i, h := range s.Hidden[1:] {
		if h != s.Hidden[0] {
			return fmt.Errorf("residual: needs layers of equal sizes, hidden = %v has %d at layer %d and %d at layer 0", s.Hidden, h, i+1, s.Hidden[0])
		}
	}
	return nil
}

// TrainSettings is the [train] section of a config. The zero value trains DefaultEpochs epochs of
// DefaultOrder batches of DefaultBatchSize with DefaultOptimizer at its default learning rate,
// without gradient clipping.
type TrainSettings struct {
	// Optimizer is one of the Optimizer constants; default DefaultOptimizer. Dense weights are
	// updated every step; embedding rows only when the batch uses them (lazy
	// Adam/Adagrad/momentum: the optimiser state of a row moves only when the row is updated).
	Optimizer Optimizer `toml:"optimizer"`
	// LearningRate is the step size; default the optimiser's, in the table of optimisers (0.001
	// for adam, 0.05 for adagrad, 0.1 for sgd and momentum: TestOptimizerDefaults ties this
	// comment to the table).
	LearningRate float64 `toml:"learning_rate"`
	// Momentum is μ of optimizer "momentum" (v ← μv + g, w ← w − lr·v); default
	// DefaultMomentum. Setting it for another optimizer is an error.
	Momentum float64 `toml:"momentum"`
	// Beta1 and Beta2 are Adam's moment decays; defaults DefaultBeta1 and DefaultBeta2. Adam
	// only.
	Beta1 float64 `toml:"beta1"`
	Beta2 float64 `toml:"beta2"`
	// Epsilon is the denominator guard of Adam and Adagrad; default the optimiser's, in the
	// table of optimisers (1e-8 for adam, 1e-10 for adagrad).
	Epsilon float64 `toml:"epsilon"`
	// Clip is the maximum global L2 norm of the gradient (all dense weights and all embedding
	// rows of the step together); a larger gradient is scaled down to it. Default 0: no clipping.
	Clip float64 `toml:"clip"`
	// BatchSize is the number of training interactions per step (B); default DefaultBatchSize.
	// The last incomplete batch of every epoch is dropped.
	BatchSize int `toml:"batch_size"`
	// Epochs is the number of passes over the training interactions; default DefaultEpochs
	// unless Steps is set. Set Epochs or Steps, not both.
	Epochs int `toml:"epochs"`
	// Steps, when positive, is the exact number of training steps (epochs repeat as needed).
	Steps int `toml:"steps"`
	// Order is OrderShuffled (a new seeded permutation every epoch) or OrderSequential (by day,
	// then timestamp, then data order: Yi et al.'s sequential training, which the streaming
	// estimators need to track a drifting distribution); default DefaultOrder.
	Order Order `toml:"order"`
	// LogEvery is the number of steps per point of the training curve; default DefaultLogEvery.
	LogEvery int `toml:"log_every"`
	// CheckpointEvery is the number of steps between two training checkpoints when training
	// writes them (TrainResumable with a checkpoint file); default 0: at the end of every
	// epoch. A checkpoint is also written after the last step.
	CheckpointEvery int `toml:"checkpoint_every"`
	// LogSeconds is the minimum time between two plain progress lines when progress does not
	// go to a terminal; default DefaultLogSeconds. It changes nothing the run computes and is in
	// no run's identity.
	LogSeconds float64 `toml:"log_seconds" affects:"nothing"`
	// ValidateEvery, when positive, evaluates the model on the validation set (Dataset.Valid)
	// every ValidateEvery epochs and after the last step, by the selection metric
	// (metrics.Settings.SelectMetric, SelectK and SelectSlice, at τ_LA = 0), and makes the
	// parameters of the best validation score the trained model (the earliest of equal
	// scores): model selection on validation, as SASRec (Kang & McAuley 2018, section IV-B) and
	// Khrylchenko et al. (2025) select theirs. It needs a validation split. Default 0: no
	// validation, the model is that of the last step.
	ValidateEvery int `toml:"validate_every"`
	// Patience, with ValidateEvery, stops training after Patience validations in a row without
	// a better score than the best (early stopping, as gSASRec's code does with its patience);
	// at least 1. Default: no early stopping (every epoch trains; the best validation's
	// parameters are the model all the same).
	Patience *int `toml:"patience"`
}

// Resolve fills the zero fields with their defaults and validates the settings.
func (s *TrainSettings) Resolve() error {
	setting.Default(&s.Optimizer, DefaultOptimizer)
	if err := setting.OneOf("optimizer", s.Optimizer, optimizerNames()); err != nil {
		return err
	}
	opt := optimizers[slices.Index(optimizerNames(), s.Optimizer)]
	setting.Default(&s.LearningRate, opt.learningRate)
	if s.Optimizer == OptimizerMomentum {
		setting.Default(&s.Momentum, DefaultMomentum)
	}
	if s.Optimizer == OptimizerAdam {
		setting.Default(&s.Beta1, DefaultBeta1)
		setting.Default(&s.Beta2, DefaultBeta2)
	}
	setting.Default(&s.Epsilon, opt.epsilon)
	setting.Default(&s.BatchSize, DefaultBatchSize)
	if s.Steps == 0 {
		setting.Default(&s.Epochs, DefaultEpochs)
	}
	setting.Default(&s.Order, DefaultOrder)
	setting.Default(&s.LogEvery, DefaultLogEvery)
	setting.Default(&s.LogSeconds, DefaultLogSeconds)
	return setting.First(
		setting.Positive("learning_rate", s.LearningRate),
		setting.OnlyFor("momentum", s.Momentum != 0, s.Optimizer == OptimizerMomentum,
			"only used by optimizer %q, got optimizer %q", OptimizerMomentum, s.Optimizer),
		setting.Range("momentum", s.Momentum, setting.ClosedOpen(0.0, 1)),
		setting.OnlyFor("beta1", s.Beta1 != 0 || s.Beta2 != 0, s.Optimizer == OptimizerAdam,
			"beta1 and beta2 are only used by optimizer %q, got optimizer %q", OptimizerAdam, s.Optimizer),
		setting.Range("beta1", s.Beta1, setting.ClosedOpen(0.0, 1)),
		setting.Range("beta2", s.Beta2, setting.ClosedOpen(0.0, 1)),
		setting.OnlyFor("epsilon", s.Epsilon != 0, opt.epsilon != 0,
			"only used by optimizers %q and %q, got optimizer %q", OptimizerAdam, OptimizerAdagrad, s.Optimizer),
		setting.NotNegative("epsilon", s.Epsilon, ""),
		setting.NotNegative("clip", s.Clip, "no clipping"),
		setting.Positive("batch_size", s.BatchSize),
		setting.NotNegative("epochs", s.Epochs, ""),
		setting.NotNegative("steps", s.Steps, ""),
		setting.Require("steps", s.Epochs == 0 || s.Steps == 0, "set epochs or steps, not both (epochs %d, steps %d)", s.Epochs, s.Steps),
		setting.Positive("log_every", s.LogEvery),
		setting.NotNegative("checkpoint_every", s.CheckpointEvery, "every epoch"),
		setting.Positive("log_seconds", s.LogSeconds),
		setting.OneOf("order", s.Order, orders),
		setting.NotNegative("validate_every", s.ValidateEvery, "no validation"),
		setting.OnlyFor("patience", s.Patience != nil, s.ValidateEvery > 0,
			"stops training on validation scores, which only validate_every gives (it is 0); set validate_every or leave patience out"),
		setting.Require("patience", s.Patience == nil || *s.Patience >= 1,
			"must be a number of validations >= 1 (leave it out for no early stopping), got %d", deref(s.Patience)),
	)
}

// deref is *p, 0 for nil.
func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
