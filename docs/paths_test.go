package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// machinePath matches an absolute path into a place that belongs to one machine or one user:
// home directories, scratch and work areas, mount points and temporary directories (a file
// naming one records where it was produced, and is wrong on every other machine). Paths that
// are the same on every system where the file is used (the standard hierarchy's /usr, /etc,
// /var/lib, /run, /dev, /proc, e.g. /usr/bin/time or /etc/munge/munge.key in the CI scripts)
// are not matched. A path must start a word: "results/tmp/x" is relative.
var machinePath = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.~/-])(/(?:home|root|Users|work|scratch|mnt|media|srv|tmp|var/tmp|var/folders|private/tmp)/[^\s"'\x60)]*)|\b[A-Z]:\\(?:Users|Temp)\\`)

// TestMachinePathPattern: the pattern finds a producing machine's paths and leaves relative
// paths and system paths alone. The cases write "§" for the root's slash (and "¤" for a
// drive's backslash), so that this file does not itself name such paths.
func TestMachinePathPattern(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`out = "§work/showcase-out/wiki"`, true},
		{`see §home/alice/data`, true},
		{`cd §root/src`, true},
		{`TMP=§tmp/run.1`, true},
		{`(§Users/bob/x)`, true},
		{`C:¤Users¤bob¤x`, true},
		{`out = "results/wiki"`, false},
		{`results/tmp/x`, false},
		{`/usr/bin/time -v`, false},
		{`/etc/munge/munge.key`, false},
		{`/proc/meminfo`, false},
		{`https://example.org/home/x`, false},
		{`mktemp -d -t slurm-e2e.XXXXXX`, false},
	} {
		text := strings.NewReplacer("§", "/", "¤", `\`).Replace(c.text)
		t.Run(text, func(t *testing.T) {
			if got := machinePath.MatchString(text); got != c.want {
				t.Errorf("matched %v, want %v", got, c.want)
			}
		})
	}
}

// TestNoMachinePaths: no tracked text file names a path outside the repository that belongs to
// the machine that produced it (see machinePath).
func TestNoMachinePaths(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v): the tracked files are unknown", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 50 {
		t.Fatalf("git ls-files lists %d files", len(files))
	}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet committed
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 {
			continue // binary: images, compressed data
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := machinePath.FindString(line); m != "" {
				t.Errorf("%s:%d names a path of the producing machine: %s", name, i+1, strings.TrimSpace(m))
			}
		}
	}
}
