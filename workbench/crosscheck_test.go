package workbench

import "testing"

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
