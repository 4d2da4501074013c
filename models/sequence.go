package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/internal/setting"
)

// SequenceEncoder is the encoder of a query made of the user's past items,
// SequenceSettings.Encoder.
type SequenceEncoder string

// Sequence encoders (docs/encoders.md).
const (
	// EncoderNone: the query tower reads no history, only the query's own features (for
	// interaction data, the user's id): every pair of a user shares one query embedding.
	EncoderNone SequenceEncoder = "none"
	// EncoderSASRec is Kang & McAuley's self-attentive sequential encoder (ICDM 2018): item
	// embedding plus learned positional embedding, blocks of causal self-attention and a
	// point-wise feed-forward layer; the query is the hidden state at a position.
	EncoderSASRec SequenceEncoder = "sasrec"
	// EncoderMean is Yi et al.'s watch-history feature (section 5): the mean of the embeddings
	// of the history's items, concatenated with the user's other features before the query MLP.
	EncoderMean SequenceEncoder = "mean"
)

var sequenceEncoders = []SequenceEncoder{EncoderNone, EncoderSASRec, EncoderMean}

// UnmarshalText sets e from its name; an unknown name is an error that lists the allowed ones.
func (e *SequenceEncoder) UnmarshalText(b []byte) error {
	return setting.Unmarshal(e, b, sequenceEncoders)
}

// EmbeddingScale is the factor of the item embedding at SASRec's input,
// SequenceSettings.EmbeddingScale.
type EmbeddingScale string

// Scales of SASRec's item embedding (docs/encoders.md).
const (
	// ScaleSqrtD multiplies the item embedding by √d, as Kang & McAuley's code does
	// (kang205/SASRec modules.py, embedding with scale=True).
	ScaleSqrtD EmbeddingScale = "sqrt_d"
	// ScaleNone adds the item embedding to the positional one unscaled, as the paper's eq. (1)
	// and gSASRec's code (Petrov & Macdonald 2023) and Khrylchenko et al.'s (2025) do.
	ScaleNone EmbeddingScale = "none"
)

var embeddingScales = []EmbeddingScale{ScaleSqrtD, ScaleNone}

// UnmarshalText sets s from its name; an unknown name is an error that lists the allowed ones.
func (s *EmbeddingScale) UnmarshalText(b []byte) error {
	return setting.Unmarshal(s, b, embeddingScales)
}

// sasrecNormEpsilon is ε of every layer normalisation of SASRec unless
// SequenceSettings.LayerNormEpsilon sets another: Kang & McAuley's code's (kang205/SASRec
// modules.py, normalize: epsilon = 1e-8).
const sasrecNormEpsilon = 1e-8

// Defaults of SequenceSettings. SASRec's
// defaults are Kang & McAuley's on MovieLens-1M (their code, kang205/SASRec: main.py's
// num_blocks 2 and num_heads 1, and the README's MovieLens-1M command, --maxlen=200
// --dropout_rate=0.2; the paper's section IV uses 200 and 0.2 for MovieLens-1M, 50 and 0.5 for
// its sparser data sets), trained on each user's last window as their sampler draws it
// (datasets.WindowingLast). Yi et al. do not give their history length k; the mean encoder
// takes DefaultMaxLength too.
const (
	DefaultMaxLength = 200
	DefaultBlocks    = 2
	DefaultHeads     = 1
	DefaultDropout   = 0.2
	DefaultWindowing = datasets.WindowingLast
)

// SequenceSettings is the [model.sequence] section: whether the query tower reads the user's
// past items, and how (docs/encoders.md). The zero value reads none. With
// EncoderSASRec the defaults are DefaultBlocks blocks of DefaultHeads heads, dropout
// DefaultDropout, histories of at most DefaultMaxLength items, the output item table tied to
// the input one and training on DefaultWindowing windows. Each field's default is the constant
// its comment names.
type SequenceSettings struct {
	// Encoder is EncoderMean or EncoderSASRec, or EncoderNone: the query tower reads no history,
	// as when the key is unset. No history is held as the zero value "" (a resolved EncoderNone
	// too), so that the settings of a model without one are what they were before the key
	// existed.
	Encoder SequenceEncoder `toml:"encoder"`
	// MaxLength is the most items of a history the encoder reads (the most recent ones; Kang &
	// McAuley's n, Yi et al.'s k); default DefaultMaxLength. SASRec has one positional
	// embedding per position up to it, and trains windows of at most MaxLength positions.
	MaxLength int `toml:"max_length"`
	// Blocks is the number of self-attention blocks (Kang & McAuley's b); default
	// DefaultBlocks. SASRec only.
	Blocks int `toml:"blocks"`
	// Heads is the number of attention heads, which must divide the width (the model's
	// embedding_dim); default DefaultHeads. SASRec only.
	Heads int `toml:"heads"`
	// Dropout is the rate of every dropout layer (embedding, attention weights, both
	// feed-forward layers), in [0, 1); default DefaultDropout; 0 turns dropout off. Inference
	// never drops. SASRec only.
	Dropout *float64 `toml:"dropout"`
	// SeparateOutput gives the items' output embeddings (the rows a hidden state is scored
	// against) a table of their own. Default false: the output table is the input item table,
	// as Kang & McAuley share it (section III-D; their code scores with the input table).
	// SASRec only.
	SeparateOutput bool `toml:"separate_output"`
	// EmbeddingScale is the factor of the item embedding at SASRec's input: ScaleSqrtD, √d as
	// in Kang & McAuley's code, as when the key is unset; ScaleNone, 1 as in the paper's eq. (1)
	// and gSASRec's and Khrylchenko et al.'s code. ScaleSqrtD written and the key unset are one
	// setting, held as the zero value "", so that results from before the key keep their
	// identity. SASRec only.
	EmbeddingScale EmbeddingScale `toml:"embedding_scale"`
	// LayerNormEpsilon is ε of every layer normalisation of SASRec, LayerNorm(x) = γ ⊙ (x −
	// μ)/sqrt(σ² + ε) + β; a positive finite number. Unset it is 1e-8, Kang & McAuley's code's;
	// gSASRec's and Khrylchenko et al.'s code take PyTorch's 1e-5. 1e-8 written and the key
	// unset are one setting, held as nil, so that results from before the key keep their
	// identity. SASRec only.
	LayerNormEpsilon *float64 `toml:"layer_norm_epsilon"`
	// Windowing is how SASRec's training cuts each user's sequence into windows of at most
	// MaxLength targets, every position of which is a row of the step (datasets.Windowing: "last",
	// each user's last window, as Kang & McAuley's sampler; "all", every target once per epoch);
	// default DefaultWindowing. SASRec only.
	Windowing datasets.Windowing `toml:"windowing"`
}

// Resolve fills the zero fields with their defaults and validates the settings; an option the
// encoder does not use must be left unset.
func (s *SequenceSettings) Resolve() error {
	if s.Encoder == EncoderNone {
		s.Encoder = ""
	}
	if err := setting.OneOf("encoder", s.Encoder, append(sequenceEncoders, "")); err != nil {
		return err
	}
	if s.Encoder != EncoderSASRec {
		only := func(key string, set bool) error {
			return setting.OnlyFor(key, set, false, "only for encoder %q, not %q", EncoderSASRec, s.Encoder)
		}
		err := setting.First(
			only("blocks", s.Blocks != 0),
			only("heads", s.Heads != 0),
			only("dropout", s.Dropout != nil),
			only("separate_output", s.SeparateOutput),
			only("embedding_scale", s.EmbeddingScale != ""),
			only("layer_norm_epsilon", s.LayerNormEpsilon != nil),
			only("windowing", s.Windowing != ""),
		)
		if err != nil {
			return err
		}
		if s.Encoder == "" {
			return setting.OnlyFor("max_length", s.MaxLength != 0, false, "only for a query tower that reads histories (encoder %q or %q)", EncoderMean, EncoderSASRec)
		}
		setting.Default(&s.MaxLength, DefaultMaxLength)
		return setting.Positive("max_length", s.MaxLength)
	}
	setting.Default(&s.MaxLength, DefaultMaxLength)
	setting.Default(&s.Blocks, DefaultBlocks)
	setting.Default(&s.Heads, DefaultHeads)
	setting.Default(&s.Windowing, DefaultWindowing)
	if s.Dropout == nil {
		p := DefaultDropout
		s.Dropout = &p
	}
	var scale, eps error
	if s.EmbeddingScale != "" {
		scale = setting.OneOf("embedding_scale", s.EmbeddingScale, embeddingScales)
	}
	if s.LayerNormEpsilon != nil {
		eps = setting.Positive("layer_norm_epsilon", *s.LayerNormEpsilon)
	}
	// Kang & McAuley's scale and ε, written or not, are held as the zero values.
	if s.EmbeddingScale == ScaleSqrtD {
		s.EmbeddingScale = ""
	}
	if s.LayerNormEpsilon != nil && *s.LayerNormEpsilon == sasrecNormEpsilon {
		s.LayerNormEpsilon = nil
	}
	return setting.First(
		setting.Positive("max_length", s.MaxLength),
		setting.Positive("blocks", s.Blocks),
		setting.Positive("heads", s.Heads),
		setting.Range("dropout", *s.Dropout, setting.ClosedOpen(0.0, 1)),
		scale,
		eps,
		setting.OneOf("windowing", s.Windowing, datasets.Windowings()),
	)
}

// embeddingScale is the factor of the item embedding at the input of a SASRec encoder of width d
// of the resolved settings.
func (s *SequenceSettings) embeddingScale(d int) float64 {
	if s.EmbeddingScale == ScaleNone {
		return 1
	}
	return math.Sqrt(float64(d))
}

// normEpsilon is ε of the layer normalisations of a SASRec encoder of the resolved settings.
func (s *SequenceSettings) normEpsilon() float64 {
	if s.LayerNormEpsilon == nil {
		return sasrecNormEpsilon
	}
	return *s.LayerNormEpsilon
}

// ReadsHistory reports whether the resolved settings make the query a history of items.
func (s *SequenceSettings) ReadsHistory() bool {
	return s.Encoder == EncoderMean || s.Encoder == EncoderSASRec
}

// checkWidth checks the resolved settings against the encoder's width d.
func (s *SequenceSettings) checkWidth(d int) error {
	if s.Encoder != EncoderSASRec {
		return nil
	}
	return setting.Require("heads", d%s.Heads == 0, "%d heads do not divide the width %d (model.embedding_dim)", s.Heads, d)
}

// Padding marks an empty position of a Window.
const Padding int32 = -1

// Window is a batch of item histories, the input of a sequence encoder: Rows histories of Len
// positions, row-major, each padded on the left as Kang & McAuley pad (section III-A):
// Items[r·Len+j] is Padding for j below the row's start and an item id from there on, the most
// recent item last. A row of Padding only is an empty history.
type Window struct {
	Rows, Len int
	Items     []int32
}

// check validates w for an encoder of items items reading at most maxLen positions.
func (w *Window) check(items, maxLen int) error {
	switch {
	case w.Rows < 0 || w.Len < 1:
		return fmt.Errorf("models: window of %d rows of length %d", w.Rows, w.Len)
	case w.Len > maxLen:
		return fmt.Errorf("models: window of length %d exceeds max_length %d", w.Len, maxLen)
	case len(w.Items) != w.Rows*w.Len:
		return fmt.Errorf("models: window of %d×%d positions holds %d items", w.Rows, w.Len, len(w.Items))
	}
	for r := range w.Rows {
		row := w.Items[r*w.Len : (r+1)*w.Len]
		for j := w.start(r); j < w.Len; j++ {
			switch it := row[j]; {
			case it == Padding:
				return fmt.Errorf("models: window row %d: padding at position %d after an item (histories are padded on the left)", r, j)
			case it < 0 || int(it) >= items:
				return fmt.Errorf("models: window row %d, position %d: item %d out of range [0, %d)", r, j, it, items)
			}
		}
	}
	return nil
}

// start returns the first position of row r that is not Padding (Len for an empty history).
func (w *Window) start(r int) int {
	row := w.Items[r*w.Len : (r+1)*w.Len]
	for j, it := range row {
		if it != Padding {
			return j
		}
	}
	return w.Len
}

// history returns the items of row r, the most recent last.
func (w *Window) history(r int) []int32 { return w.Items[r*w.Len+w.start(r) : (r+1)*w.Len] }

// dropRate returns the threshold t and the scale of a dropout of rate p: a unit is dropped when
// a uniform 16-bit integer is below t = round(p·2¹⁶) (at most 2¹⁶ − 1), so that the rate is
// t/2¹⁶, within 2⁻¹⁷ of p, and four units come from one 64-bit draw; a kept unit is scaled by
// 1/(1 − t/2¹⁶), so that its expectation is 1.
func dropRate(p float64) (t uint64, scale float64) {
	t = min(uint64(math.Round(p*(1<<16))), 1<<16-1)
	return t, 1 / (1 - float64(t)/(1<<16))
}

// dropChunk is the number of units of a mask drawn from one random stream.
const dropChunk = 1 << 14

// fillDropout writes one step's inverted-dropout mask (Srivastava et al. 2014, "Dropout: A
// Simple Way to Prevent Neural Networks from Overfitting"; the form of Kang & McAuley's
// TensorFlow and PyTorch code) into m: 0 with probability p, else 1/(1 − p), so that
// E[m_i] = 1 (p as dropRate rounds it). It takes one 64-bit draw s from rng, which the caller
// owns (seeded from the run's seed), and draws chunk c of dropChunk units from the PCG stream
// (s, c): the chunks fill in parallel, and the mask depends on rng's state and m's length only.
func fillDropout[T float](m []T, p float64, rng *rand.Rand) {
	seed := rng.Uint64()
	chunks := (len(m) + dropChunk - 1) / dropChunk
	parallelRows(chunks, dropChunk, func(lo, hi int) {
		var src rand.PCG
		for c := lo; c < hi; c++ {
			src.Seed(seed, uint64(c))
			bernoulli(m[c*dropChunk:min(len(m), (c+1)*dropChunk)], p, &src)
		}
	})
}

// bernoulli fills m with 0 (probability p, as dropRate rounds it) or the kept units' scale from
// src, four units per draw: unit 4k+i from bits 16i to 16i+15 of draw k. It has no branch on
// the draws (a unit is kept when the sign bit of its 16 bits minus t is 0).
func bernoulli[T float](m []T, p float64, src *rand.PCG) {
	t, scale := dropRate(p)
	keep := T(scale)
	unit := func(u uint64) T { return keep * T(1-(u&0xffff-t)>>63) }
	i := 0
	for ; i+4 <= len(m); i += 4 {
		u := src.Uint64()
		m[i], m[i+1], m[i+2], m[i+3] = unit(u), unit(u>>16), unit(u>>32), unit(u>>48)
	}
	if i < len(m) {
		u := src.Uint64()
		for ; i < len(m); i, u = i+1, u>>16 {
			m[i] = unit(u)
		}
	}
}
