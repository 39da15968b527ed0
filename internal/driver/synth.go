package driver

import (
	"context"
	"fmt"
	"time"
)

// Synth is the synthetic target: a database that keeps nothing but counts and answers every
// operation at once, or after a fixed Latency. What a run against it measures is the client
// alone: its ceiling, and how N local shards raise it (docs/scale-out.md). Named synth or
// synth:LATENCY (e.g. synth:100us). A workload binds its own store to it (the Insert
// Benchmark's: insertbench/stores/synth.go).
type Synth struct {
	Latency time.Duration
}

// Info describes the synthetic target.
func (s *Synth) Info(context.Context) Info {
	return Info{Kind: "synth", Target: "synth:" + s.Latency.String(), Engine: "synthetic", Version: "1",
		Settings: map[string]any{"latency": s.Latency.String()}}
}

// Close implements Target.
func (s *Synth) Close() error { return nil }

// Wait is one operation's fixed latency.
func (s *Synth) Wait() {
	if s.Latency > 0 {
		time.Sleep(s.Latency)
	}
}

func init() {
	Register(Kind{Name: "synth", Usage: "synth[:LATENCY]",
		Summary: "synthetic: keeps nothing, answers at once (or after LATENCY); measures the client alone",
		Open: func(_ context.Context, s Spec) (Target, error) {
			st := &Synth{}
			if s.Path != "" {
				d, err := time.ParseDuration(s.Path)
				if err != nil || d < 0 {
					return nil, fmt.Errorf("synth:%s: the latency is not a duration (e.g. synth:100us)", s.Path)
				}
				st.Latency = d
			}
			return st, nil
		}})
}
