package workbench

import (
	"context"
	"reflect"
	"regexp"
	"strconv"
	"testing"
)

// TestGridAPI: a grid run from Go (Do with Options) finishes its selected runs; Finished reads
// their results; Evaluate of a finished run's saved model gives the results it recorded (same
// data, settings and seed), and with Run.Config's other [eval] settings evaluates it anew;
// Report writes the folder's report from the finished runs.
func TestGridAPI(t *testing.T) {
	out := t.TempDir()
	g, err := Load(smokeConfig, "seeds=[1]", "out="+strconv.Quote(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Do(context.Background(), Options{Only: regexp.MustCompile("plain")}); err != nil {
		t.Fatal(err)
	}
	done, err := g.Finished()
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done[0].ID != "variant=plain,seed=1" || len(done[0].Results) == 0 {
		t.Fatalf("finished runs %+v", done)
	}
	again, err := g.Evaluate(context.Background(), done[0].Run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, done[0].Results) {
		t.Errorf("the saved model evaluated again gives other results:\n%v\nwant\n%v", again, done[0].Results)
	}
	// Other [eval] settings in Run.Config: the saved model evaluated at other cut-offs; other
	// training settings: an error.
	r := done[0].Run
	r.Config.Eval.K = []int{5, 20}
	other, err := g.Evaluate(context.Background(), r, nil)
	if err != nil {
		t.Fatal(err)
	}
	ks := map[int]bool{}
	for _, res := range other {
		ks[res.K] = true
	}
	if !ks[5] || !ks[20] || ks[10] {
		t.Errorf("evaluated at eval.k = [5, 20]: results at K %v", ks)
	}
	r = done[0].Run
	r.Config.Train.Epochs++
	if _, err := g.Evaluate(context.Background(), r, nil); err == nil {
		t.Error("Evaluate with other training settings accepted")
	}
	if err := g.Report(nil); err != nil {
		t.Fatal(err)
	}
	if !exists(out + "/metrics.csv") {
		t.Error("Report wrote no metrics.csv")
	}
	if err := g.Do(context.Background(), Options{Jobs: -1}); err == nil {
		t.Error("Options.Jobs = -1 accepted")
	}
}
