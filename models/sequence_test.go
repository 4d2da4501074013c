package models

import (
	"math"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// TestSequenceSettingsResolve checks the defaults of the sequence encoders' settings (no
// history, held as the zero value; SASRec's for MovieLens-1M: 2 blocks, 1 head, dropout 0.2,
// length 200, the output table tied, each user's last window) and that every bad value is one
// error naming its key, the options of SASRec included for the mean encoder, which has none of
// them, and every option for the tower without history.
func TestSequenceSettingsResolve(t *testing.T) {
	for _, enc := range []SequenceEncoder{"", EncoderNone} {
		s := SequenceSettings{Encoder: enc}
		if err := s.Resolve(); err != nil || s != (SequenceSettings{}) || s.ReadsHistory() {
			t.Errorf("encoder %q: %+v, %v", enc, s, err)
		}
	}
	s := SequenceSettings{Encoder: EncoderSASRec}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if s.MaxLength != 200 || s.Blocks != 2 || s.Heads != 1 || *s.Dropout != 0.2 || s.SeparateOutput || s.Windowing != "last" || !s.ReadsHistory() {
		t.Errorf("defaults %+v (dropout %v)", s, *s.Dropout)
	}
	m := SequenceSettings{Encoder: EncoderMean}
	if err := m.Resolve(); err != nil || m.MaxLength != DefaultMaxLength || m.Dropout != nil || m.Blocks != 0 || !m.ReadsHistory() {
		t.Errorf("mean: %+v, %v", m, err)
	}
	zero := 0.0
	if z := (SequenceSettings{Encoder: EncoderSASRec, Dropout: &zero}); z.Resolve() != nil || *z.Dropout != 0 {
		t.Errorf("dropout 0 is not kept: %v", *z.Dropout)
	}
	f := func(v float64) *float64 { return &v }
	// Kang & McAuley's scale and ε, written, resolve to the zero values, as neither written
	// (which keeps the identity of results from before the keys); another form is kept.
	for _, c := range []struct {
		name      string
		scale     EmbeddingScale
		eps       *float64
		wantScale EmbeddingScale
		wantEps   *float64 // nil: unset
	}{
		{"kang", ScaleSqrtD, f(1e-8), "", nil},
		{"gsasrec", ScaleNone, f(1e-5), ScaleNone, f(1e-5)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := SequenceSettings{Encoder: EncoderSASRec, EmbeddingScale: c.scale, LayerNormEpsilon: c.eps}
			if err := got.Resolve(); err != nil {
				t.Fatal(err)
			}
			if got.EmbeddingScale != c.wantScale || (got.LayerNormEpsilon == nil) != (c.wantEps == nil) ||
				(c.wantEps != nil && *got.LayerNormEpsilon != *c.wantEps) {
				t.Errorf("resolved scale %q, ε %v; want %q, %v", got.EmbeddingScale, got.LayerNormEpsilon, c.wantScale, c.wantEps)
			}
			got.EmbeddingScale, got.LayerNormEpsilon, got.Dropout = "", nil, s.Dropout
			if got != s {
				t.Errorf("resolved %+v, the defaults %+v", got, s)
			}
		})
	}
	for _, c := range []struct {
		s   SequenceSettings
		key string
	}{
		{SequenceSettings{Encoder: "gru"}, "encoder"},
		{SequenceSettings{MaxLength: 5}, "max_length"},
		{SequenceSettings{Encoder: EncoderNone, Heads: 1}, "heads"},
		{SequenceSettings{Encoder: EncoderSASRec, MaxLength: -1}, "max_length"},
		{SequenceSettings{Encoder: EncoderMean, MaxLength: -5}, "max_length"},
		{SequenceSettings{Encoder: EncoderSASRec, Blocks: -1}, "blocks"},
		{SequenceSettings{Encoder: EncoderSASRec, Heads: -2}, "heads"},
		{SequenceSettings{Encoder: EncoderSASRec, Dropout: f(1)}, "dropout"},
		{SequenceSettings{Encoder: EncoderSASRec, Dropout: f(-0.1)}, "dropout"},
		{SequenceSettings{Encoder: EncoderSASRec, Windowing: "first"}, "windowing"},
		{SequenceSettings{Encoder: EncoderMean, Blocks: 2}, "blocks"},
		{SequenceSettings{Encoder: EncoderMean, Heads: 1}, "heads"},
		{SequenceSettings{Encoder: EncoderMean, Dropout: f(0.2)}, "dropout"},
		{SequenceSettings{Encoder: EncoderMean, SeparateOutput: true}, "separate_output"},
		{SequenceSettings{Encoder: EncoderMean, Windowing: "all"}, "windowing"},
		{SequenceSettings{Encoder: EncoderSASRec, EmbeddingScale: "sqrt"}, "embedding_scale"},
		{SequenceSettings{Encoder: EncoderSASRec, LayerNormEpsilon: f(0)}, "layer_norm_epsilon"},
		{SequenceSettings{Encoder: EncoderSASRec, LayerNormEpsilon: f(-1e-5)}, "layer_norm_epsilon"},
		{SequenceSettings{Encoder: EncoderSASRec, LayerNormEpsilon: f(math.Inf(1))}, "layer_norm_epsilon"},
		{SequenceSettings{Encoder: EncoderSASRec, LayerNormEpsilon: f(math.NaN())}, "layer_norm_epsilon"},
		{SequenceSettings{Encoder: EncoderMean, EmbeddingScale: ScaleNone}, "embedding_scale"},
		{SequenceSettings{Encoder: EncoderMean, EmbeddingScale: ScaleSqrtD}, "embedding_scale"},
		{SequenceSettings{Encoder: EncoderMean, LayerNormEpsilon: f(1e-5)}, "layer_norm_epsilon"},
		{SequenceSettings{LayerNormEpsilon: f(1e-8)}, "layer_norm_epsilon"},
	} {
		err := c.s.Resolve()
		if err == nil || !strings.HasPrefix(err.Error(), c.key+":") || strings.Count(err.Error(), ":") > 2 {
			t.Errorf("%+v: error %v, want one naming %s", c.s, err, c.key)
		}
	}
	three := SequenceSettings{Encoder: EncoderSASRec, Heads: 3}
	if err := three.Resolve(); err != nil {
		t.Fatal(err)
	}
	if err := three.checkWidth(64); err == nil || !strings.HasPrefix(err.Error(), "heads:") || !strings.Contains(err.Error(), "64") {
		t.Errorf("3 heads of width 64: %v", err)
	}
	if _, err := newSASRec(SequenceSettings{Encoder: EncoderSASRec, Heads: 3}, 64, 10, 0.1, tensor.Float32, 1); err == nil {
		t.Error("newSASRec accepted 3 heads of width 64")
	}
	if err := three.checkWidth(63); err != nil {
		t.Errorf("3 heads of width 63: %v", err)
	}
}

// TestWindowCheck checks the validation of a window of histories: padding on the left only,
// items in range, the length at most max_length, the size matching, an empty history allowed.
func TestWindowCheck(t *testing.T) {
	P := Padding
	for _, c := range []struct {
		name string
		w    Window
		want string // "" for a valid window
	}{
		{"valid", Window{Rows: 2, Len: 3, Items: []int32{P, 1, 2, P, P, P}}, ""},
		{"right padding", Window{Rows: 1, Len: 3, Items: []int32{1, 2, P}}, "row 0: padding at position 2 after an item"},
		{"gap", Window{Rows: 1, Len: 3, Items: []int32{1, P, 2}}, "padding at position 1"},
		{"range", Window{Rows: 2, Len: 2, Items: []int32{P, 1, 0, 9}}, "row 1, position 1: item 9 out of range [0, 9)"},
		{"negative", Window{Rows: 1, Len: 2, Items: []int32{P, -3}}, "item -3 out of range"},
		{"length", Window{Rows: 1, Len: 6, Items: make([]int32, 6)}, "length 6 exceeds max_length 5"},
		{"size", Window{Rows: 2, Len: 3, Items: make([]int32, 5)}, "holds 5 items"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.w.check(9, 5)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
