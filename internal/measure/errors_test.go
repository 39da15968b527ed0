package measure_test

import (
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/measure"
)

// Errors keep their kind and the first message of each kind through the recorders, the
// intervals and the step's total, and the summary lists them most first.
func TestErrorKinds(t *testing.T) {
	r1, r2 := measure.NewRecorder(nOps), measure.NewRecorder(nOps)
	r1.Error(opQuery, "deadlock", "ERROR: deadlock detected (SQLSTATE 40P01)")
	r1.Error(opQuery, "deadlock", "a second deadlock, not kept")
	r2.Error(opQuery, "", "something else")
	long := strings.Repeat("x", 2*measure.MaxErrorMessage)
	r2.Error(opInsert, "lock_timeout", long)

	total := measure.NewInterval(nOps)
	iv := measure.NewInterval(nOps)
	r1.Drain(iv)
	r2.Drain(iv)
	total.Add(iv)
	iv.Reset()
	r1.Error(opQuery, "other", "later other, not kept")
	r1.Error(opQuery, "deadlock", "later deadlock, not kept")
	r1.Drain(iv)
	total.Add(iv)

	s := measure.Summarize(&total.Ops[opQuery], 1)
	want := []measure.ErrorCount{
		{Kind: "deadlock", Count: 3, First: "ERROR: deadlock detected (SQLSTATE 40P01)"},
		{Kind: "other", Count: 2, First: "something else"},
	}
	if s.Errors != 5 || len(s.ErrorKinds) != len(want) {
		t.Fatalf("errors %d, kinds %+v; want 5 in %+v", s.Errors, s.ErrorKinds, want)
	}
	for i := range want {
		if s.ErrorKinds[i] != want[i] {
			t.Errorf("kind %d = %+v, want %+v", i, s.ErrorKinds[i], want[i])
		}
	}
	ins := measure.Summarize(&total.Ops[opInsert], 1)
	if len(ins.ErrorKinds) != 1 || len(ins.ErrorKinds[0].First) > measure.MaxErrorMessage ||
		!strings.HasSuffix(ins.ErrorKinds[0].First, "...") {
		t.Errorf("a long message is kept whole or unmarked: %+v", ins.ErrorKinds)
	}
	if d := measure.Summarize(&total.Ops[opDelete], 1); d.ErrorKinds != nil {
		t.Errorf("an op type without errors has kinds %+v", d.ErrorKinds)
	}
}
