//go:build linux

package workbench

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestProcessAliveZombie: a killed process not yet reaped (a zombie, as a process killed with
// its parent leaves until an init reaps it) holds no claim: its claim is taken over at once.
func TestProcessAliveZombie(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	if !processAlive(pid) {
		t.Fatalf("the running process %d is not alive", pid)
	}
	cmd.Process.Kill()
	for deadline := time.Now().Add(10 * time.Second); ; { // not waited for: a zombie once it exits
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil && strings.Contains(string(b), ") Z") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not become a zombie: %s", pid, b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if processAlive(pid) {
		t.Errorf("the killed, unreaped process %d is alive for processAlive: its claim would be waited on until it goes stale", pid)
	}
	me := owner{Host: "h", PID: os.Getpid(), Process: "me", Token: "a"}
	if !ownerGone(owner{Host: "h", PID: pid, Process: "other", Token: "b"}, me) {
		t.Errorf("the claim of the zombie %d is not gone", pid)
	}
}
