package report

import (
	"strings"
	"testing"
)

// TestAuditNotesMass: a group whose declared copies sum to twice the drawn ones is flagged even
// with its TV within the noise floor; a mass at or below 1 (an exact law, less by the mass of
// items never drawn) adds nothing to the note, nor does a run recorded without a mass (0).
func TestAuditNotesMass(t *testing.T) {
	notes := auditNotes([]*Run{
		{Group: "a", Audit: &Audit{TV: 0.05, Floor: 0.05, Mass: 2, Head: 10}},
		{Group: "b", Audit: &Audit{TV: 0.05, Floor: 0.05, Mass: 0.2, Head: 10}},
		{Group: "c", Audit: &Audit{TV: 0.05, Floor: 0.05, Head: 10}},
	})
	if !strings.Contains(notes[0], "sum to 2.000 times the copies drawn, which an exact law never exceeds") {
		t.Errorf("mass 2: %s", notes[0])
	}
	for _, n := range notes[1:] {
		if strings.Contains(n, "copies drawn") {
			t.Errorf("mass at most 1 or none: %s", n)
		}
	}
}
