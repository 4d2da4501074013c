package workbench

import (
	"fmt"
	"testing"

	"github.com/samplingbias/workbench/samplers"
)

// widthOptions are the options of the test sampler even_uniform.
type widthOptions struct {
	Width int `toml:"width"`
}

// A sampler registered for this test binary: uniform with an even number of negatives, whose New
// refuses an odd sampler.negatives, a width other than 1 and more than 64 negatives, the last
// in a message that names no key.
func init() {
	err := samplers.Register("even_uniform", samplers.Custom{
		New: func(o any, negatives int) (samplers.Sampler, error) {
			switch {
			case negatives%2 != 0:
				return nil, fmt.Errorf("negatives: must be even, got %d", negatives)
			case o.(*widthOptions).Width > 1:
				return nil, fmt.Errorf("options.width: must be at most 1, got %d", o.(*widthOptions).Width)
			case negatives > 64:
				return nil, fmt.Errorf("%d negatives is more than it draws", negatives)
			}
			return samplers.New(samplers.Settings{Kind: samplers.KindUniform, Negatives: negatives})
		},
		Options: func() any { return new(widthOptions) },
	})
	if err != nil {
		panic(err)
	}
}

// TestRegisteredSamplerErrorKey: an error of a registered sampler's New that begins with a key of
// [sampler] names that key where the config wrote it (the file's line, the -set, the run of an
// axis value); one that names no key is sampler.kind's.
func TestRegisteredSamplerErrorKey(t *testing.T) {
	const kind = "[sampler]\nkind = \"even_uniform\"\n"
	for _, tt := range []struct {
		name string
		body string
		sets []string
		want []string
	}{
		{"negatives in the file", kind + "negatives = 3\n", nil,
			[]string{"exp.toml:3: sampler.negatives: sampler even_uniform: must be even, got 3"}},
		{"negatives by -set", kind, []string{"sampler.negatives=5"},
			[]string{"-set sampler.negatives=5: sampler.negatives: sampler even_uniform: must be even, got 5"}},
		{"negatives by an axis", kind, []string{"sampler.negatives=[2, 7]"},
			[]string{"run sampler.negatives=7,seed=1: sampler.negatives: sampler even_uniform: must be even, got 7"}},
		{"an option in the file", kind + "negatives = 4\n[sampler.options]\nwidth = 2\n", nil,
			[]string{"exp.toml:5: sampler.options.width: sampler even_uniform: must be at most 1, got 2"}},
		{"no key", kind + "negatives = 66\n", nil,
			[]string{"exp.toml:2: sampler.kind: sampler even_uniform: 66 negatives is more than it draws"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tt.body), tt.sets...)
			wantError(t, err, tt.want...)
		})
	}
}
