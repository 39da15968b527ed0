package session

import (
	"errors"
	"fmt"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// recordFaults puts what the step went through when its target failed (errors by kind,
// retries, reconnects, the windows without the target) into its summary and its line in
// run.json, and prints it; a step without any has none.
func (s *Session) recordFaults(name string, sum *archive.Step, res runner.Result) {
	f := faultsOf(res)
	if f == nil {
		return
	}
	sum.Faults = f
	steps := s.Dir.Meta.Steps
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Name == name {
			steps[i].Faults = f
			break
		}
	}
	fmt.Fprintf(s.Out, "   %s\n", f)
}

// faultsOf is a step's archive.Faults, or nil when nothing failed.
func faultsOf(res runner.Result) *archive.Faults {
	f := &archive.Faults{Errors: map[string]int64{}, Retries: res.Faults.Retries, Reconnects: res.Faults.Reconnects}
	for _, op := range res.Total.Ops {
		for _, k := range op.ErrorKinds {
			kind := k.Kind
			if kind == "" {
				kind = measure.KindOther
			}
			f.Errors[kind] += k.Count
		}
	}
	for _, w := range res.Faults.Windows {
		end := w.End
		if end.IsZero() {
			end = res.End
		}
		f.Unreachable = append(f.Unreachable, archive.Window{Start: w.Start, End: w.End,
			Seconds: measure.Round(max(0, end.Sub(w.Start).Seconds()), 3)})
	}
	if len(f.Errors) == 0 && f.Retries == 0 && f.Reconnects == 0 && len(f.Unreachable) == 0 {
		return nil
	}
	return f
}

// unreachable is the step's error as one sentence when its target stayed unreachable for the
// fault timeout ("step qr100 ended after 1m0s without the target: ..."), else nil.
func unreachable(name string, err error) error {
	var u *runner.Unreachable
	if !errors.As(err, &u) {
		return nil
	}
	return fmt.Errorf("step %s %w", name, u)
}
