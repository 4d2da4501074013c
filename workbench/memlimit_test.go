package workbench

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/datasets"
)

// TestPeakBytes: the peak is the parts live throughout plus the larger of training's and
// evaluation's parts, which are never live together.
func TestPeakBytes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		terms []memoryTerm
		want  float64
	}{
		{"training larger", []memoryTerm{{bytes: 10, phase: phaseBoth}, {bytes: 7, phase: phaseTrain}, {bytes: 5, phase: phaseEval}, {bytes: 1, phase: phaseTrain}}, 18},
		{"evaluation larger", []memoryTerm{{bytes: 10, phase: phaseBoth}, {bytes: 3, phase: phaseTrain}, {bytes: 5, phase: phaseEval}, {bytes: 1, phase: phaseBoth}}, 16},
		{"none", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := peakBytes(tt.terms); got != tt.want {
				t.Errorf("peakBytes = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMemoryLimitFormula(t *testing.T) {
	const gib = 1 << 30
	for _, tt := range []struct {
		need, machine float64
		want          int64
	}{
		{gib, 16 * gib, 1.5*gib + 256<<20},
		{0, 16 * gib, 256 << 20},
		{20 * gib, 16 * gib, 16 * gib}, // never above the machine's memory
		{14 * gib, 16 * gib, 16 * gib},
		{4 * gib, 16 * gib, 6*gib + 256<<20},      // the room reaches limitRoom
		{10 * gib, 16 * gib, 12*gib + 256<<20},    // and stays there
		{8.5 * gib, 24 * gib, 10.5*gib + 256<<20}, // about configs/synthetic_10m.toml's estimate (README, "Scale")
	} {
		if got := memoryLimit(tt.need, tt.machine); got != tt.want {
			t.Errorf("memoryLimit(%v, %v) = %v, want %v", tt.need, tt.machine, got, tt.want)
		}
	}
}

// TestSetMemoryLimit: the runtime's soft limit is set from the estimate, capped by the machine's
// memory, left alone when GOMEMLIMIT is set, and restored afterwards.
func TestSetMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	const gib = 1 << 30
	noEnv := func(string) (string, bool) { return "", false }
	withEnv := func(k string) (string, bool) { return "3GiB", k == "GOMEMLIMIT" }
	for _, tt := range []struct {
		name    string
		need    float64
		env     func(string) (string, bool)
		want    int64
		message string
	}{
		{"from the estimate", 2 * gib, noEnv, 3*gib + 256<<20, "memory: Go heap limited to 3.2 GiB (1.5 × the runs' estimate of 2.0 GiB + 256.0 MiB; GOMEMLIMIT overrides)\n"},
		{"machine", 20 * gib, noEnv, 16 * gib, "memory: Go heap limited to 16.0 GiB (a test machine, less than the runs' estimate of 20.0 GiB + 2.0 GiB + 256.0 MiB; GOMEMLIMIT overrides)\n"},
		{"room", 6 * gib, noEnv, 8*gib + 256<<20, "memory: Go heap limited to 8.2 GiB (the runs' estimate of 6.0 GiB + 2.0 GiB + 256.0 MiB; GOMEMLIMIT overrides)\n"},
		{"GOMEMLIMIT", 2 * gib, withEnv, prev, "memory: GOMEMLIMIT=3GiB (the runs' estimate is 2.0 GiB)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			restore := setMemoryLimit(tt.need, 16*gib, "a test machine", tt.env, &out)
			got := debug.SetMemoryLimit(-1)
			restore()
			if got != tt.want {
				t.Errorf("limit %d, want %d", got, tt.want)
			}
			if after := debug.SetMemoryLimit(-1); after != prev {
				t.Errorf("limit after restore %d, want %d", after, prev)
			}
			if out.String() != tt.message {
				t.Errorf("message %q, want %q", out.String(), tt.message)
			}
		})
	}
}

// TestMemoryLimitFromEstimate runs the command on one smoke run: without GOMEMLIMIT it limits the
// heap to memoryLimit of the run's dataset and peak estimate, and restores the limit on return;
// with GOMEMLIMIT it leaves the limit alone.
func TestMemoryLimitFromEstimate(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	_, cfg, err := loadConfig(smokeConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load(cfg.Data, cfg.DataSeed)
	if err != nil {
		t.Fatal(err)
	}
	peak, _, err := runMemory(cfg, ds)
	if err != nil {
		t.Fatal(err)
	}
	machine, _ := machineMemory()
	want := "memory: Go heap limited to " + formatBytes(float64(memoryLimit(ds.Bytes()+peak, machine))) + " (1.5 × the runs' estimate of " + formatBytes(ds.Bytes()+peak) + " + 256.0 MiB"
	args := []string{"-config", smokeConfig, "-only", "variant=plain,seed=1"}
	out, err := runEnv(nil, append(args, "-out", t.TempDir())...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, want) {
		t.Errorf("output without GOMEMLIMIT does not say %q:\n%s", want, out)
	}
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("limit after the command %d, before %d", got, prev)
	}
	out, err = runEnv(map[string]string{"GOMEMLIMIT": "5GiB"}, append(args, "-out", t.TempDir())...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "memory: GOMEMLIMIT=5GiB") || strings.Contains(out, "Go heap limited") {
		t.Errorf("output with GOMEMLIMIT:\n%s", out)
	}
}
