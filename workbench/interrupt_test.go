package workbench

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestInterruptStopsPromptly: a run interrupted (SIGINT) mid-training stops within seconds with
// an error, where it would otherwise train for hours; after two interrupts in a row as well.
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
