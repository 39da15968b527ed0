package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestRunFlagsShared: every run command that runs on servers takes the shared flags from
// runFlags.add, so that each reads and defaults them alike (a copy drifts: sysbench's
// --no-verify once said less than the others').
func TestRunFlagsShared(t *testing.T) {
	shared := pflag.NewFlagSet("shared", pflag.ContinueOnError)
	(&runFlags{prefix: "PREFIX"}).add(shared, runSpec{Plan: true, ClientBound: true, Shard: true})
	for name, cmd := range map[string]*cobra.Command{"ycsb": runYCSBCmd(), "script": runScriptCmd(), "sysbench": runSysbenchCmd()} {
		shared.VisitAll(func(want *pflag.Flag) {
			got := cmd.Flags().Lookup(want.Name)
			if got == nil {
				t.Errorf("run %s has no --%s", name, want.Name)
				return
			}
			if want.Name == "target" || want.Name == "seed" { // the workload's own help and default
				return
			}
			usage := strings.ReplaceAll(want.Usage, "PREFIX", name)
			if got.Usage != usage || got.DefValue != want.DefValue {
				t.Errorf("run %s --%s: %q (default %s), not the shared %q (default %s)", name, want.Name, got.Usage, got.DefValue, usage, want.DefValue)
			}
		})
	}
}
