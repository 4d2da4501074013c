package workbench

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBatchOfOneRefused: batch_size = 1 with the in_batch sampler leaves a step without negatives
// (with logq's default expected_count, Q = 0 for every column, which used to end as "training
// diverged … try a smaller learning_rate"): a config error naming train.batch_size, the sampler
// and the variant, before anything trains; also when an axis gives the batch size. Uniform and
// mixed negatives make a batch of one valid.
func TestBatchOfOneRefused(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string // nil: accepted
	}{
		{"logq default", "[train]\nbatch_size = 1\n[loss]\nvariant = \"logq\"\n",
			[]string{`train.batch_size = 1 with sampler.kind = "in_batch" (loss.variant = "logq"): a row's negatives are the other pairs of its batch, so a batch of one has none`,
				`the expected count Q = (B−1)·q of loss.logq_probability = "expected_count" is 0 for every column`, "use train.batch_size >= 2"}},
		{"plain", "[train]\nbatch_size = 1\n", []string{`train.batch_size = 1 with sampler.kind = "in_batch" (loss.variant = "plain"): a row's negatives are the other pairs of its batch, so a batch of one has none; use`}},
		{"axis", "[loss]\nvariant = \"logq\"\n[[ablation]]\nkey = \"train.batch_size\"\nvalues = [1, 2]\n", []string{"train.batch_size = 1 with sampler.kind"}},
		{"uniform", "[train]\nbatch_size = 1\n[loss]\nvariant = \"logq\"\n[sampler]\nkind = \"uniform\"\n", nil},
		{"mixed", "[train]\nbatch_size = 1\n[loss]\nvariant = \"logq\"\n[sampler]\nkind = \"mixed\"\n", nil},
		{"batch of two", "[train]\nbatch_size = 2\n[loss]\nvariant = \"logq\"\n", nil},
		// SASRec's batch of one window has a row per position: negatives, unless a window is one
		// position long.
		{"sasrec window", "[data]\nsource = \"synthetic\"\n[train]\nbatch_size = 1\n[model.sequence]\nencoder = \"sasrec\"\nmax_length = 5\n", nil},
		{"sasrec window of one", "[data]\nsource = \"synthetic\"\n[train]\nbatch_size = 1\n[model.sequence]\nencoder = \"sasrec\"\nmax_length = 1\n",
			[]string{`train.batch_size = 1 with sampler.kind = "in_batch"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadAndPlan(t, tt.body)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, tt.want...)
		})
	}
}

// TestUnreadEstimatorWarned: an [estimator] that no run of the grid reads (smoke's plain and
// logq with the expected count Q = (B−1)·count/N) is named in a warning with where it was
// written; a grid with a run that reads p̂ (logq_probability = "inclusion", the sampler's
// audit, in_batch_unique's q under the expected count) or a config without [estimator] has none.
func TestUnreadEstimatorWarned(t *testing.T) {
	const warning = "no run of the grid reads the estimator"
	for _, tc := range []struct {
		name string
		sets []string
		want string // "" : no warning
	}{
		{"unread", []string{"estimator.kind=lsh"}, "warning: -set estimator.kind=lsh: estimator.kind: " + warning},
		{"no estimator", nil, ""},
		{"inclusion", []string{"estimator.kind=lsh", "loss.variant=logq", "loss.logq_probability=inclusion"}, ""},
		{"audit", []string{"estimator.alpha=0.5", "sampler.audit=true"}, ""},
		{"in_batch_unique", []string{"estimator.alpha=0.5", "loss.variant=logq", "sampler.kind=in_batch_unique", "sampler.negatives=8"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-config", smokeConfig, "-out", t.TempDir(), "-list"}
			for _, s := range tc.sets {
				args = append(args, "-set", s)
			}
			out, err := runCommand(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out, warning); got != (tc.want != "") || !strings.Contains(out, tc.want) {
				t.Errorf("output:\n%s\nwant the warning %q", out, tc.want)
			}
		})
	}
}

// TestUnreadEstimatorShowcase: a results folder's config.toml holds the [estimator] table of
// the grid, empty when the config wrote none: loaded, it gets no warning.
func TestUnreadEstimatorShowcase(t *testing.T) {
	out, err := runCommand(t, "-config", filepath.Join("..", "results", "showcase", "negatives", "config.toml"), "-out", t.TempDir(), "-list")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "reads the estimator") {
		t.Errorf("output:\n%s", out)
	}
}

// TestUnreadEstimatorRunConfig: a run's own config.toml holds every resolved setting, the
// estimator's defaults too; loaded as a config (a grid of that run, which reads no estimator), it
// gets no warning, while the same run with an estimator setting of its own does.
func TestUnreadEstimatorRunConfig(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		warn bool
	}{{nil, false}, {[]string{"estimator.alpha=0.5"}, true}} {
		out := t.TempDir()
		if _, err := runCommand(t, setArgs(out, "variant=plain,seed=1", tc.sets...)...); err != nil {
			t.Fatal(err)
		}
		stdout, err := runCommand(t, "-config", filepath.Join(out, "runs", "variant=plain,seed=1", "config.toml"), "-out", out, "-list")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(stdout, "reads the estimator"); got != tc.warn {
			t.Errorf("-set %v: warning %t, want %t:\n%s", tc.sets, got, tc.warn, stdout)
		}
	}
}
