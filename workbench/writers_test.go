package workbench

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConcurrentWriters: a command refuses a results folder that a live command of another
// config is writing (which would evaluate its runs again and write its report over this one's),
// before anything is trained; commands of one config, a shard of a config whose figures differ,
// and a registration left by a dead process do not stop it.
func TestConcurrentWriters(t *testing.T) {
	host, dead := deadProcess(t)
	for _, tt := range []struct {
		name   string
		sets   []string // the other command's config: smoke with these -set
		shard  bool     // the other command is a shard (writes no folder-level file)
		pid    int      // the other command's process id; 0: this process
		report bool     // this command is -report
		want   string   // this command's error; "" for none
	}{
		{name: "same config", want: ""},
		{name: "other evaluation", sets: []string{"eval.k=[1,10,100]"},
			want: "with other settings (eval.k = [1, 10] here, [1, 10, 100] there): both would write run variant=plain,seed=1"},
		{name: "other filter", sets: []string{`eval.filter="seen"`},
			want: `with other settings (eval.filter = the default here, "seen" there)`},
		{name: "shard of other evaluation", sets: []string{"eval.k=[1,10,100]"}, shard: true, want: "both would write run variant=plain,seed=1"},
		{name: "other figures", sets: []string{"plots.dpi=72"},
			want: "(plots.dpi = 100 here, 72 there): both would write the folder's config.toml, summary.md, tables (metrics.csv, tv.csv) and figures"},
		{name: "shard of other figures", sets: []string{"plots.dpi=72"}, shard: true, want: ""},
		{name: "report beside other figures", sets: []string{"plots.dpi=72"}, report: true, want: "both would write the folder's config.toml"},
		{name: "dead process of other evaluation", sets: []string{"eval.k=[1,10,100]"}, pid: dead, want: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			g, err := Load(smokeConfig, append([]string{"out=" + strconv.Quote(out)}, tt.sets...)...)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := plan(g.raw, g.cfg)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"-config", smokeConfig, "-out", out, "-only", "variant=plain,seed=1$"}
			if tt.report { // a report needs a finished run
				if _, err := runCommand(t, args...); err != nil {
					t.Fatal(err)
				}
				args = []string{"-config", smokeConfig, "-out", out, "-report"}
			} else if err := claimFolder(out, g.cfg, axisKeyList(g.cfg.Ablation), io.Discard); err != nil {
				t.Fatal(err)
			}
			o := testOptions(t, 1)
			if tt.pid != 0 {
				o.me.Host, o.me.PID = host, tt.pid
			}
			release, err := registerWriter(g.cfg, runs, o, !tt.shard)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			_, err = runCommand(t, args...)
			trained := filepath.Join(out, "runs", "variant=plain,seed=1", "metrics.json")
			if tt.report {
				trained = ""
			}
			checkRefusal(t, err, tt.want, trained)
			left, err := filepath.Glob(filepath.Join(out, writersDir, "*"))
			if err != nil {
				t.Fatal(err)
			}
			want := 1 // the other command's, while it lives
			if tt.pid != 0 {
				want = 0
			}
			if len(left) != want {
				t.Errorf("%d registrations left (%v), want %d", len(left), left, want)
			}
		})
	}
}

// checkRefusal requires err to be nil when want is "", else an error containing want with the
// file wrote (a path the refused command must not have written; "" for none) absent.
func checkRefusal(t *testing.T, err error, want, wrote string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("refused: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("error %v, want one containing %q", err, want)
	case want != "" && wrote != "" && exists(wrote):
		t.Errorf("refused after writing %s", wrote)
	}
}

// TestReportLock: -report waits while another command writes the folder's report, and reads the
// finished runs once it has the lock: a run that finished meanwhile is in its report, rather
// than a report of fewer runs written over the other's.
func TestReportLock(t *testing.T) {
	out := t.TempDir()
	args := []string{"-config", smokeConfig, "-out", out, "-set", "seeds=[1]"}
	if _, err := runCommand(t, args...); err != nil {
		t.Fatal(err)
	}
	run, aside := filepath.Join(out, "runs", "variant=logq,seed=1"), filepath.Join(t.TempDir(), "run")
	if err := os.Rename(run, aside); err != nil { // not finished yet
		t.Fatal(err)
	}
	other := testOptions(t, 1).me
	c, held, err := claimFile(filepath.Join(out, writersDir, reportLock), other, defaultClaimTimes)
	if err != nil || held != nil {
		t.Fatalf("the other command's lock: held by %v, error %v", held, err)
	}
	var stdout string
	done := make(chan error)
	go func() {
		var err error
		stdout, err = runCommand(t, append(args, "-report")...)
		done <- err
	}()
	time.Sleep(4 * reportPoll)
	if err := os.Rename(aside, run); err != nil { // finished while the other command writes
		t.Fatal(err)
	}
	if err := c.release(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"waiting for " + other.String() + ", which is writing " + out + "'s report\n", "report: 2 of 2 runs finished\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-report printed\n%s\nwant a line %q", stdout, want)
		}
	}
}
