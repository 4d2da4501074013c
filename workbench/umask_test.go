//go:build unix

package workbench

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSharedFilesFollowUmask: under umask 002 (a group sharing a results folder on a cluster)
// every file and folder the command writes — training.settings, a held claim.json, the runs'
// results and the folder's — is readable and writable by the group: files 0664, folders 0775,
// the modes the umask leaves, as for files of any other program. (training.settings and
// claim.json were 0600, so that another user's -report got "permission denied".) The umask is
// set in a child process, as it is the whole process's.
func TestSharedFilesFollowUmask(t *testing.T) {
	if out := os.Getenv("WORKBENCH_UMASK_CHILD_OUT"); out != "" {
		syscall.Umask(0o002)
		if err := Main([]string{"-config", smokeConfig, "-out", out, "-only", "^variant=plain,seed=1$"}, os.Stdout, os.Stderr); err != nil {
			t.Fatal(err)
		}
		me, err := newOwner()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := claimRun(filepath.Join(out, "runs", "variant=logq,seed=1"), me, defaultClaimTimes); err != nil {
			t.Fatal(err)
		}
		return // the claim stays, as a held one
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSharedFilesFollowUmask$")
	cmd.Env = append(os.Environ(), "WORKBENCH_UMASK_CHILD_OUT="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	run := filepath.Join(dir, "runs", "variant=plain,seed=1")
	for _, f := range []string{
		filepath.Join(dir, "training.settings"), filepath.Join(dir, "metrics.csv"), filepath.Join(dir, "config.toml"),
		filepath.Join(run, "metrics.json"), filepath.Join(run, "model.bin"), filepath.Join(run, "config.toml"),
		filepath.Join(dir, "runs", "variant=logq,seed=1", "claim.json"),
	} {
		checkMode(t, f, 0o664)
	}
	for _, d := range []string{filepath.Join(dir, "runs"), run} {
		checkMode(t, d, 0o775|fs.ModeDir)
	}
}

// checkMode checks the mode of path.
func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	if got := st.Mode() & (fs.ModePerm | fs.ModeDir); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}
