package metrics

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestTuneScratch(t *testing.T) {
	in := benchInput(10000, 100000, 64)
	s := Settings{K: []int{100}, Bootstrap: -1}
	s.Resolve()
	prod := newBackend(in.U, in.V, in.Dim, 2)
	for rep := 0; rep < 2; rep++ {
		for _, g := range [][2]int{{96, 1024}, {192, 512}, {48, 2048}, {96, 512}, {192, 1024}, {384, 256}} {
			r, _ := newRanker(in, &s)
			c0, w0 := cpuNow(), time.Now()
			if err := r.run(geomBackend{prod, g[0], g[1]}, 2); err != nil {
				t.Fatal(err)
			}
			fmt.Printf("%v: cpu %v wall %v\n", g, cpuNow()-c0, time.Since(w0))
		}
	}
}
