package workbench

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestInterruptStopsPromptly: a run interrupted (SIGINT) mid-training stops within seconds with
// an error, where it would otherwise train for hours; after two interrupts in a row as well
// (what a second one says: TestInterruptTwice).
func TestInterruptStopsPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	if out := os.Getenv("WORKBENCH_INTERRUPT_CHILD_OUT"); out != "" {
		err := Main([]string{"-config", smokeConfig, "-out", out, "-only", "^variant=plain,seed=1$",
			"-set", "train.epochs=100000", "-set", "train.log_every=5", "-set", "train.log_seconds=1e-9"}, os.Stdout, os.Stderr)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	for _, signals := range []int{1, 2} {
		var stderr strings.Builder
		cmd, seen := startChild(t, "TestInterruptStopsPromptly", "WORKBENCH_INTERRUPT_CHILD_OUT="+t.TempDir(), "step 10/", &stderr)
		if !seen {
			cmd.Wait()
			t.Fatalf("the child process ended before step 10: %s", stderr.String())
		}
		for range signals {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Errorf("%d interrupt(s): the run ended without an error (%v)", signals, err)
			} else if signals == 1 && !strings.Contains(stderr.String(), "interrupted after") {
				t.Errorf("one interrupt: stderr %q does not say the run was interrupted", stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%d interrupt(s): the run did not stop within 30 s", signals)
		}
	}
}

// TestInterruptSummaryThroughClosedPipe: with stdout a pipe whose reader the same Ctrl-C ended
// (experiments ... | tee log), the interrupted command still ends with its summary on stderr and
// exit status 1, rather than being killed by SIGPIPE at its next progress line.
func TestInterruptSummaryThroughClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptStopsPromptly$")
	cmd.Env = append(os.Environ(), "WORKBENCH_INTERRUPT_CHILD_OUT="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "step 10/") {
	}
	stdout.Close() // the reader is gone, as tee ended by the Ctrl-C
	// Progress lines written meanwhile (one every 5 steps) meet the closed pipe.
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("the command ended with %v, want exit status 1 (stderr %q)", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted after 0 of 1 runs; run the same command again to resume") {
		t.Errorf("stderr %q lacks the summary", stderr.String())
	}
}

// TestInterruptTwice: the first SIGINT cancels the command's context and says how to stop at
// once; the second says the command was interrupted (not that a run failed) and ends the process
// by the signal (here, a stand-in for it). The signals are sent to this process, whose handling
// interruptible has taken over; each waits for the previous one's message, as the kernel merges
// signals that arrive before they are handled.
func TestInterruptTwice(t *testing.T) {
	var mu sync.Mutex
	var stderr strings.Builder
	w := writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return stderr.Write(b) })
	said := func(s string) bool {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			ok := strings.Contains(stderr.String(), s)
			mu.Unlock()
			if ok {
				return true
			}
		}
		return false
	}
	ended := make(chan os.Signal, 1)
	ctx, stop := interruptibleExit(w, func(sig os.Signal) { ended <- sig })
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first SIGINT did not cancel the context")
	}
	if !said("interrupted: stopping at the next step; finished runs and checkpoints are kept (interrupt again to stop at once)\n") {
		t.Fatalf("first interrupt: stderr %q", stderr.String())
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case sig := <-ended:
		if sig != syscall.SIGINT {
			t.Errorf("ended by %v, want SIGINT", sig)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second SIGINT did not end the process")
	}
	if !said("interrupted again: stopping at once; finished runs and the last checkpoints are kept, run the same command again to resume\n") {
		t.Errorf("second interrupt: stderr %q", stderr.String())
	}
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestInterruptKeepsResultsSaysInterrupted: an interrupted invocation on a folder with results
// keeps its metrics.csv and says it was interrupted, not that a run failed. The SIGINT goes to
// this process, whose handling Main has taken over, once the new run's progress shows step 10.
func TestInterruptKeepsResultsSaysInterrupted(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"-set", "train.log_every=5", "-set", "train.log_seconds=1e-9", "-only", "^variant=plain"}
	if _, err := runCommand(t, append([]string{"-config", smokeConfig, "-out", dir, "-set", "seeds=[1]"}, sets...)...); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sent := false
	w := writerFunc(func(b []byte) (int, error) {
		out.Write(b)
		if !sent && strings.Contains(out.String(), "step 10/") {
			sent = true
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				return 0, err
			}
		}
		return len(b), nil
	})
	err := Main(append([]string{"-config", smokeConfig, "-out", dir, "-set", "seeds=[1, 2]"}, sets...), w, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "interrupted after 0 of 1 runs") {
		t.Fatalf("error %v, want the interrupt's (output:\n%s)", err, out.String())
	}
	if !strings.Contains(out.String(), dir+" keeps its previous metrics.csv, summary.md and figures: interrupted\n") || strings.Contains(out.String(), "failed") {
		t.Errorf("output:\n%s", out.String())
	}
}
