package workbench

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestREADMESchemaVersion: the README's description of training.settings names the version of
// the identities this code writes.
func TestREADMESchemaVersion(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("(`%s %d`)", versionPrefix, schemaVersion)
	if !strings.Contains(string(b), want) {
		t.Errorf("README.md's row of training.settings does not name the schema version this code writes, %s", want)
	}
}
