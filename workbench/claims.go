package workbench

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/samplingbias/workbench/internal/atomicfile"
)

// Claims keep processes that share one results folder (the tasks of a job array on a network
// file system, or two commands started by hand) from training the same run twice.
//
// Before training a run, a process creates the run's claim file, runs/<id>/claim.json, holding
// its host, process id, a random token and the start time. Creation is exclusive: the claim is
// written to a temporary file and hard-linked to its name, which fails when the name exists (on
// every POSIX file system, NFS included; where hard links are not supported it is created with
// O_CREATE|O_EXCL). A process that finds a live claim of another process first runs the rest of
// its runs, then waits for that claim to be released or to go stale (see schedule). While it
// trains, the owner touches its claim every claimTimes.heartbeat; it removes the claim once the
// run's metrics.json is written.
//
// A claim whose token is not the caller's is stale, and taken over, when
//   - it has not been touched for claimTimes.stale, whatever its host and process id (its owner
//     died on another host, or lost the file system);
//   - its owner is a process of this host that no longer exists;
//   - it carries the caller's host and process id but another process's identity: an earlier
//     process with the same id, as in a restarted container whose entrypoint is process 1 again.
//
// Taking over is itself exclusive (claim.json.takeover), so two processes that find the same
// stale claim do not both take it.

// claimTimes are the claims' heartbeat and staleness bound, and how long and how often a process
// waits for the live claims of others on runs of its own shard.
type claimTimes struct {
	heartbeat, stale time.Duration
	wait, poll       time.Duration
}

// defaultClaimTimes: touched every minute, stale after ten minutes without a touch; a claim of
// another process is looked at every 5 seconds for at most half an hour (time for it to go stale,
// or for its owner to finish a run).
var defaultClaimTimes = claimTimes{heartbeat: time.Minute, stale: 10 * time.Minute, wait: 30 * time.Minute, poll: 5 * time.Second}

// thisProcess tells this process from an earlier one of the same host and process id (a
// restarted container): random, set once when the program starts.
var thisProcess = rand.Text()

// owner identifies a process (or, in tests, one Main call) holding claims: Process is the same
// for every owner of one process, Token differs between owners.
type owner struct {
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Process string    `json:"process"`
	Token   string    `json:"token"`
	Started time.Time `json:"started"`
}

// newOwner is the owner of the calling process's claims.
func newOwner() (owner, error) {
	host, err := os.Hostname()
	if err != nil {
		return owner{}, err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return owner{}, err
	}
	return owner{Host: host, PID: os.Getpid(), Process: thisProcess, Token: hex.EncodeToString(b[:]), Started: time.Now().UTC()}, nil
}

func (o owner) String() string {
	return fmt.Sprintf("process %d on %s since %s", o.PID, o.Host, o.Started.Format(time.RFC3339))
}

// createExclusive creates path holding b, failing with fs.ErrExist when path exists. Readers see
// the whole content or no file (except on file systems without hard links, where the content
// follows the creation at once).
func createExclusive(path string, b []byte) error {
	tmp, err := atomicfile.CreateTemp(path)
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := writeClose(tmp, b); err != nil {
		return err
	}
	err = os.Link(name, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// No hard links here: exclusive creation instead.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	return writeClose(f, b)
}

// writeClose writes b to f, syncs and closes it.
func writeClose(f *os.File, b []byte) error {
	_, err := f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// claim is a held claim on one run.
type claim struct {
	path string
	me   owner
	stop chan struct{}
	done chan struct{}
}

// claimRun tries to claim the run whose directory is dir. It returns the claim, or nil and the
// live owner when another process holds it.
func claimRun(dir string, me owner, times claimTimes) (*claim, *owner, error) {
	if err := noLinks(dir); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil { // less the umask, as every folder made here
		return nil, nil, err
	}
	if err := noLinks(dir); err != nil { // made meanwhile by another process
		return nil, nil, err
	}
	return claimFile(filepath.Join(dir, "claim.json"), me, times)
}

// claimFile tries to create the claim file path for me, or to take it over when it is stale. It
// returns the claim, or nil and the live owner when another process holds it.
func claimFile(path string, me owner, times claimTimes) (*claim, *owner, error) {
	body, err := json.Marshal(me)
	if err != nil {
		return nil, nil, err
	}
	err = createExclusive(path, body)
	if errors.Is(err, fs.ErrExist) {
		var held *owner
		if held, err = takeOver(path, body, me, times); held != nil || err != nil {
			return nil, held, err
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return hold(path, me, times), nil, nil
}

// hold is the claim of me on the file at path, which me has just created: touched every
// times.heartbeat until it is released.
func hold(path string, me owner, times claimTimes) *claim {
	c := &claim{path: path, me: me, stop: make(chan struct{}), done: make(chan struct{})}
	go c.heartbeat(times.heartbeat)
	return c
}

// takeOver replaces the claim at path by ours if it is stale; otherwise it returns its owner.
func takeOver(path string, body []byte, me owner, times claimTimes) (*owner, error) {
	held, fresh, err := readClaim(path, me, times)
	if err != nil || fresh {
		return held, err
	}
	lock := path + ".takeover"
	if err := createExclusive(lock, body); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(lock); err == nil && time.Since(st.ModTime()) > times.stale {
			os.Remove(lock) // left by a process that died while taking over
		}
		return held, nil // another process is taking it over
	}
	defer os.Remove(lock)
	// Still the same stale claim? (It may have been taken over and released meanwhile.)
	again, fresh, err := readClaim(path, me, times)
	if err != nil || fresh || again.Token != held.Token {
		return again, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := createExclusive(path, body); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return again, nil
		}
		return nil, err
	}
	return nil, nil
}

// readClaim reads the claim at path and tells whether it is fresh (its owner is alive).
func readClaim(path string, me owner, times claimTimes) (*owner, bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &owner{}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var held owner
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	if json.Unmarshal(b, &held) != nil {
		// Being written (no hard links) or torn: fresh until it is old.
		return &held, time.Since(st.ModTime()) <= times.stale, nil
	}
	return &held, times.live(held, me, st.ModTime()), nil
}

// live reports whether the process held, whose file was last touched at touched, is alive as
// far as me can tell: not known to be gone (ownerGone) and touched within times.stale.
func (times claimTimes) live(held, me owner, touched time.Time) bool {
	return !ownerGone(held, me) && time.Since(touched) <= times.stale
}

// ownerGone reports whether the process that holds a claim is known to be gone without waiting
// for its claim to age: it is a process of this host that does not exist, or an earlier process
// of this host with the caller's process id (a restarted container).
func ownerGone(held, me owner) bool {
	switch {
	case held.Token == me.Token || held.Host != me.Host:
		return false
	case held.PID == me.PID:
		return held.Process != me.Process
	default:
		return !processAlive(held.PID)
	}
}

// processAlive reports whether a process of this host has the id pid.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !zombie(pid)
}

// zombie reports whether the process pid has exited and waits to be reaped (state Z or X in
// /proc/<pid>/stat, Linux): a killed process whose parent died first stays a zombie until an
// init reaps it, which in a container without one is never, and kill(pid, 0) still finds it.
// Elsewhere, or when the file cannot be read, it reports false.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')') // the command name, in parentheses, may hold spaces and ')'
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}

// heartbeat touches the claim until it is released.
func (c *claim) heartbeat(every time.Duration) {
	defer close(c.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			now := time.Now()
			os.Chtimes(c.path, now, now) // a missed touch only ages the claim
		}
	}
}

// release stops the heartbeat and removes the claim if it is still ours.
func (c *claim) release() error {
	close(c.stop)
	<-c.done
	var held owner
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if json.Unmarshal(b, &held) == nil && held.Token != c.me.Token {
		return nil // taken over after we were presumed dead: not ours to remove
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
