//go:build !linux

package workbench

import (
	"os"
	"time"
)

// changeStamp is, on systems whose status-change time the workbench does not read, nothing: a
// file's hash is then never cached, but computed every time (see cachedHash).
func changeStamp(os.FileInfo) (stamp string, changed time.Time, ok bool) {
	return "", time.Time{}, false
}
