package workbench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndefinedQConfigs: a config whose loss needs the sampler's probability Q with a sampler
// that has none (hard, sce) is one error naming the variant, the sampler and the undefined Q, as
// is declaring the unigram law for such a sampler; the losses that need no Q load.
func TestUndefinedQConfigs(t *testing.T) {
	for _, tt := range []struct {
		body string
		want []string // nil: the config loads
	}{
		{"[loss]\nvariant = \"plain\"\nremove_accidental_hits = true\n[sampler]\nkind = \"hard\"\nnegatives = 8", nil},
		{"[loss]\nvariant = \"logout\"\n[sampler]\nkind = \"sce\"\nnegatives = 8", nil},
		{"[loss]\nvariant = \"logq\"\n[sampler]\nkind = \"hard\"\nnegatives = 8",
			[]string{"loss.variant: logq needs the sampler's probability Q", "sampler hard draws by the model's scores", "Q undefined"}},
		{"[loss]\nvariant = \"relative\"\n[sampler]\nkind = \"sce\"\nnegatives = 8",
			[]string{"loss.variant: relative needs the sampler's probability Q", "sampler sce", "Q undefined"}},
		{"[loss]\nvariant = \"gbce\"\n[sampler]\nkind = \"hard\"\nnegatives = 8",
			[]string{"loss.variant: gbce needs the sampler's probability Q", "uniform negatives", "sampler hard", "Q undefined"}},
		{"[loss]\nvariant = \"login\"\nlogq_probability = \"inclusion\"\n[sampler]\nkind = \"hard\"\nnegatives = 8",
			[]string{"loss.variant: login needs the sampler's probability Q", "sampler hard", "Q undefined"}},
		{"[loss]\nvariant = \"importance\"\n[sampler]\nkind = \"hard\"\nnegatives = 8\ndeclare = \"unigram\"",
			[]string{"sampler.declare: sampler hard draws by the model's scores", "Q undefined"}},
	} {
		_, _, err := loadConfig(writeConfig(t, tt.body), nil)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%q: %v", tt.body, err)
			}
			continue
		}
		wantError(t, err, tt.want...)
	}
}

// TestSinglePositiveData: login on interactions whose every user has one training item is one
// error saying so, before any step, rather than a run that would be the softmax cross-entropy.
func TestSinglePositiveData(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("user_id,item_id\n")
	for u := range 600 {
		fmt.Fprintf(&csv, "%d,%d\n", u, (u*7)%50)
	}
	if err := os.WriteFile(filepath.Join(dir, "pairs.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "exp.toml")
	body := "[data]\nsource = \"interactions\"\npath = \"pairs.csv\"\n[data.interactions]\nuser = \"user_id\"\nitem = \"item_id\"\ntime = \"none\"\nrating = \"none\"\n" +
		"[model]\nembedding_dim = 8\nhidden = [8]\n[train]\nbatch_size = 32\nepochs = 1\n[loss]\nvariant = \"login\"\n[eval]\nk = [10]\nbootstrap = 10\n"
	if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Main([]string{"-config", config, "-out", filepath.Join(dir, "out")}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loss.variant: login counts each query's other training items as positives, and every query of dataset") ||
		!strings.Contains(err.Error(), "has one training item") {
		t.Errorf("login on single-positive data: %v", err)
	}
}
