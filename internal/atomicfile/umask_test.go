//go:build unix

package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// umaskChild is the environment variable that makes TestWriteUmask write its file (in the folder
// umaskChild+"_DIR") under the umask it gives, in octal.
const umaskChild = "ATOMICFILE_TEST_UMASK"

// TestWriteUmask: a written file has the mode 0666 less the umask of the writing process, as a
// file created by any other program (os.CreateTemp's temporary files are 0600 whatever the
// umask): group-readable and writable under umask 002, private under 077. Each umask is set in
// a child process, as it is the whole process's.
func TestWriteUmask(t *testing.T) {
	if u := os.Getenv(umaskChild); u != "" {
		mask, err := strconv.ParseUint(u, 8, 32)
		if err != nil {
			t.Fatal(err)
		}
		syscall.Umask(int(mask))
		if err := Write(filepath.Join(os.Getenv(umaskChild+"_DIR"), "f"), func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, mask := range []fs.FileMode{0o002, 0o022, 0o077} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriteUmask$")
		cmd.Env = append(os.Environ(), umaskChild+"="+strconv.FormatUint(uint64(mask), 8), umaskChild+"_DIR="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("umask %03o: %v\n%s", mask, err, out)
		}
		st, err := os.Stat(filepath.Join(dir, "f"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Mode().Perm(), 0o666&^mask; got != want {
			t.Errorf("umask %03o: mode %v, want %v", mask, got, want)
		}
	}
}
