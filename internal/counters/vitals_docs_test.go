package counters_test

import (
	"os"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/counters"
)

// TestVitalsDocumented: every vital sign shipped in vitals.conf is named, in backquotes, in
// docs/counters.md, where its source and what it tells are written.
func TestVitalsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/counters.md")
	if err != nil {
		t.Fatal(err)
	}
	defs := counters.Vitals()
	if len(defs) < 50 {
		t.Fatalf("%d vital signs: vitals.conf was not read", len(defs))
	}
	for _, d := range defs {
		if !strings.Contains(string(doc), "`"+d.Name+"`") {
			t.Errorf("vitals.conf's %s (%v) is not in docs/counters.md: add it to \"The vital signs\" with its source and what it tells", d.Name, d.Sections)
		}
	}
}
