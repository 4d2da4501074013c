package workbench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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

// TestClaimStale: a claim of a dead process of this host, or one not touched for longer than the
// bound, is taken over; a live one of another host is not.
func TestClaimStale(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid // exited and reaped
	times := claimTimes{heartbeat: time.Hour, stale: time.Minute}
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
			me, _ := newOwner()
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
