package workbench

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// changeStamp is what tells a file's content changed besides its size and modification time:
// its inode and its status-change time (ctime), which the kernel sets on every write, rename
// and attribute change and which no program can set back (cp -p and rsync -t restore the
// modification time, not the ctime, and write a new inode). It also returns the ctime, for the
// racy-window check (see cachedHash).
func changeStamp(fi os.FileInfo) (stamp string, changed time.Time, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, false
	}
	return fmt.Sprintf("%d %d %d %d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec), time.Unix(st.Ctim.Sec, st.Ctim.Nsec), true
}
