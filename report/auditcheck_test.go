package report

import (
	"strings"
	"testing"
)

// TestAuditNotesCheck: the audit line of a group gives the verdict of the check of every step and
// item (Audit.Failure): nothing more when every seed passed, the failure of the first failing
// seed and the count of failing seeds otherwise, and the count of seeds whose records predate the
// check.
func TestAuditNotesCheck(t *testing.T) {
	const fail = "item 3: inclusion probability p declared 0.0100, empirical 0.9000 of the steps (tolerance 0.0500)"
	notes := auditNotes([]*Run{
		{Group: "pass", Seed: 1, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10}},
		{Group: "pass", Seed: 2, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10}},
		{Group: "fail", Seed: 1, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10}},
		{Group: "fail", Seed: 2, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10, Failure: fail}},
		{Group: "fail", Seed: 3, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10, Failure: "item 4: other"}},
		{Group: "one", Seed: 7, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10, Failure: fail}},
		{Group: "old", Seed: 1, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10, Unchecked: true}},
		{Group: "old", Seed: 2, Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10}},
	})
	if len(notes) != 4 {
		t.Fatalf("%d notes, want 4:\n%s", len(notes), strings.Join(notes, "\n"))
	}
	for _, tc := range []struct {
		name, note, want string // want "": no verdict of the check
	}{
		{"every seed passes", notes[0], ""},
		{"two of three seeds fail", notes[1], "; the check of every step's declarations and of every item against its draws (as samplerstest.Audit's) fails " +
			"in 2 of 3 seeds, first seed 2: " + fail + ": the declared q or p is not the law of the draws"},
		{"one seed fails", notes[2], "; the check of every step's declarations and of every item against its draws (as samplerstest.Audit's) fails " +
			"(seed 7): " + fail + ": the declared q or p is not the law of the draws"},
		{"a record predates the check", notes[3], "; 1 of 2 seeds' records predate the check of every step and item: run them again to check their declarations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const tail = "worst relative error among the 10 most frequent items 0.0000"
			if !strings.HasSuffix(tc.note, tail+tc.want) {
				t.Errorf("note:\n%s\nwant it to end with:\n%s", tc.note, tail+tc.want)
			}
		})
	}
}
