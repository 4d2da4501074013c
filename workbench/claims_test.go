package workbench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestClaimExclusive: of many owners claiming one run at the same moment, exactly one gets it;
// once it is released, another can.
func TestClaimExclusive(t *testing.T) {
	for try := range 20 {
		dir := filepath.Join(t.TempDir(), "run")
		const n = 8
		var wg sync.WaitGroup
		got := make([]*claim, n)
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			me, err := newOwner()
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got[i], _, errs[i] = claimRun(dir, me, defaultClaimTimes)
			}()
		}
		close(start)
		wg.Wait()
		var held []*claim
		for i, c := range got {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if c != nil {
				held = append(held, c)
			}
		}
		if len(held) != 1 {
			t.Fatalf("try %d: %d owners hold the claim, want 1", try, len(held))
		}
		if err := held[0].release(); err != nil {
			t.Fatal(err)
		}
		me, _ := newOwner()
		c, _, err := claimRun(dir, me, defaultClaimTimes)
		if err != nil || c == nil {
			t.Fatalf("try %d: a released claim cannot be taken: %v", try, err)
		}
		c.release()
	}
}

// deadProcess returns this host's name and the id of a process of it that has exited and been
// reaped.
func deadProcess(t *testing.T) (host string, pid int) {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return host, cmd.Process.Pid
}

// TestClaimStale: a claim of a dead process of this host, one not touched for longer than the
// bound whatever its process, and one of an earlier process with the caller's host and process id
// (a restarted container) are taken over; a live one of another host, and one of another owner of
// this very process (another Main call) are not.
func TestClaimStale(t *testing.T) {
	host, dead := deadProcess(t)
	times := claimTimes{heartbeat: time.Hour, stale: time.Minute}
	me, err := newOwner()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		other owner
		age   time.Duration
		taken bool
	}{
		{"dead process of this host", owner{Host: host, PID: dead, Token: "a"}, 0, true},
		{"live process of this host", owner{Host: host, PID: os.Getppid(), Token: "b"}, 0, false},
		{"another host, touched recently", owner{Host: "elsewhere.invalid", PID: 1, Token: "c"}, 10 * time.Second, false},
		{"another host, silent too long", owner{Host: "elsewhere.invalid", PID: 1, Token: "d"}, 2 * time.Minute, true},
		{"live process of this host, silent too long", owner{Host: host, PID: os.Getppid(), Token: "e"}, 2 * time.Minute, true},
		{"restarted container: the caller's host and pid, another process", owner{Host: host, PID: me.PID, Process: "earlier", Token: "f"}, 0, true},
		{"the caller's host, pid and process: another owner of this process", owner{Host: host, PID: me.PID, Process: me.Process, Token: "g"}, 0, false},
		{"the caller's pid on another host, touched recently", owner{Host: "elsewhere.invalid", PID: me.PID, Process: "other", Token: "h"}, 10 * time.Second, false},
		{"the caller's pid on another host, silent too long", owner{Host: "elsewhere.invalid", PID: me.PID, Process: "other", Token: "i"}, 2 * time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "claim.json")
			b, _ := json.Marshal(tt.other)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-tt.age)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			c, held, err := claimRun(dir, me, times)
			if err != nil {
				t.Fatal(err)
			}
			if (c != nil) != tt.taken {
				t.Fatalf("taken over: %v, want %v (held by %v)", c != nil, tt.taken, held)
			}
			if c == nil {
				if held == nil || held.Token != tt.other.Token {
					t.Errorf("held by %+v, want %+v", held, tt.other)
				}
				return
			}
			var now owner
			b, _ = os.ReadFile(path)
			if err := json.Unmarshal(b, &now); err != nil || now.Token != me.Token {
				t.Errorf("the claim holds %s after the takeover", b)
			}
			if err := c.release(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("released claim still there: %v", err)
			}
		})
	}
}

// TestClaimHeartbeat: a held claim is touched, so that it never looks stale while its owner lives.
func TestClaimHeartbeat(t *testing.T) {
	dir := t.TempDir()
	me, _ := newOwner()
	c, _, err := claimRun(dir, me, claimTimes{heartbeat: 10 * time.Millisecond, stale: time.Hour})
	if err != nil || c == nil {
		t.Fatal(err)
	}
	defer c.release()
	path := filepath.Join(dir, "claim.json")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(st.ModTime()) < time.Minute {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the claim was not touched within 5 s")
}

// TestScheduleWaitsForHeldRun: a run of the caller's shard held by a live claim of a process on
// another host is not skipped: the scheduler runs the rest, waits with a progress line, takes the
// claim over once it is stale and trains the run. A caller whose wait ends first fails naming the
// run left (times are scaled down: stale after 300 ms without a touch).
func TestScheduleWaitsForHeldRun(t *testing.T) {
	for _, tt := range []struct {
		name string
		wait time.Duration
		want string // error, "" for success
	}{
		{"waits until stale", 10 * time.Second, ""},
		{"wait ends first", 100 * time.Millisecond, "1 runs left unfinished, held by other processes for more than 100ms: b (process 7 on node-a since 2026-11-22T10:00:00Z)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var runs []plannedRun
			for _, id := range []string{"a", "b", "c"} {
				runs = append(runs, plannedRun{cell: cell{ID: id, Group: id}, cfg: &Config{}, hash: "h", dir: filepath.Join(dir, id)})
			}
			other := owner{Host: "node-a", PID: 7, Process: "p", Token: "t", Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
			if err := writeJSON(filepath.Join(runs[1].dir, "claim.json"), other); err != nil {
				t.Fatal(err)
			}
			o := testOptions(t, 1)
			o.me.Host = "node-b"
			o.claims = claimTimes{heartbeat: 50 * time.Millisecond, stale: 300 * time.Millisecond, wait: tt.wait, poll: 20 * time.Millisecond}
			var ran []string
			var out bytes.Buffer
			start := time.Now()
			err := schedule(context.Background(), runs, o, &out, func(_ context.Context, r plannedRun, _ io.Writer) (*runRecord, error) {
				ran = append(ran, r.ID)
				return &runRecord{}, nil
			}, nil)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want %q", err, tt.want)
				}
				if !slices.Equal(ran, []string{"a", "c"}) {
					t.Errorf("ran %v, want [a c]", ran)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ran, []string{"a", "c", "b"}) {
				t.Errorf("ran %v, want [a c b]: the held run last", ran)
			}
			if time.Since(start) < 250*time.Millisecond {
				t.Errorf("the held run was taken after %s, before its claim went stale", time.Since(start))
			}
			if !strings.Contains(out.String(), "waiting for 1 runs held by other processes until they finish or their claims go stale (300ms without a touch), at most ") ||
				!strings.Contains(out.String(), ": b (process 7 on node-a since 2026-11-22T10:00:00Z)\n") {
				t.Errorf("no progress line while waiting:\n%s", out.String())
			}
		})
	}
}

// TestScheduleRunFinishedElsewhere: a run whose live claim is released with the run finished by
// its owner is counted as done, not trained again.
func TestScheduleRunFinishedElsewhere(t *testing.T) {
	dir := t.TempDir()
	runs := []plannedRun{{cell: cell{ID: "a", Group: "a"}, cfg: &Config{}, hash: "h", dir: filepath.Join(dir, "a")}}
	other := owner{Host: "node-a", PID: 7, Token: "t"}
	claimPath := filepath.Join(runs[0].dir, "claim.json")
	if err := writeJSON(claimPath, other); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, 1)
	o.claims = claimTimes{heartbeat: time.Hour, stale: time.Hour, wait: 10 * time.Second, poll: 20 * time.Millisecond}
	go func() {
		time.Sleep(100 * time.Millisecond)
		writeJSON(filepath.Join(runs[0].dir, "metrics.json"), runRecord{ID: "a", ConfigHash: "h"})
		os.Remove(claimPath)
	}()
	var out bytes.Buffer
	err := schedule(context.Background(), runs, o, &out, func(context.Context, plannedRun, io.Writer) (*runRecord, error) {
		t.Error("the run finished elsewhere was trained again")
		return &runRecord{}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "a: finished by another process meanwhile") {
		t.Errorf("output:\n%s", out.String())
	}
}

// TestRestartedContainerTrainsItsRun: a shard whose run holds a fresh claim carrying the caller's
// host and process id but another process (the container restarted, its entrypoint the same pid)
// takes the claim over at once and trains the run.
func TestRestartedContainerTrainsItsRun(t *testing.T) {
	dir := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	id := smokeRunIDs[0] // position 0: shard 0/2
	// The other task of the array ran first, so the folder is the workbench's.
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-shard", "1/2"); err != nil {
		t.Fatal(err)
	}
	earlier := owner{Host: host, PID: os.Getpid(), Process: "before the restart", Token: "t"}
	if err := writeJSON(filepath.Join(dir, "runs", id, "claim.json"), earlier); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-shard", "0/2")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(trainedIDs(out), id) || strings.Contains(out, "waiting") {
		t.Errorf("the run %s of the restarted container was not trained at once:\n%s", id, out)
	}
}
