package kv

import "strings"

// StepOps are the names of the op types a step records (stepState.plan's), known before any
// engine is opened (so that `dbperf run` can refuse an SLA no step can judge); nil for an
// unknown step.
func StepOps(step string) []string {
	var ops []string
	switch step {
	case FillSeq, OverwriteSome:
		ops = []string{opPut.Name}
	case OverwriteAndWait:
		ops = []string{opPut.Name, opWait.Name}
	case ReadRandom, ReadWhileWriting:
		ops = []string{opGet.Name}
	case MultiReadRandom:
		ops = []string{opMultiGet.Name}
	case FwdRange, FwdRangeWhileWriting:
		ops = []string{opFwdRange.Name}
	case RevRange, RevRangeWhileWriting:
		ops = []string{opRevRange.Name}
	case FlushMTL0:
		ops = []string{opMaintain.Name}
	}
	if strings.HasSuffix(step, "whilewriting") {
		ops = append(ops, opPut.Name)
	}
	return ops
}
