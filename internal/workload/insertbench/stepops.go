package insertbench

// StepOps are the names of the op types a step records, known before any target is opened (so
// that `dbperf run` can refuse an SLA no step can judge); nil for an unknown step.
func StepOps(step string) []string {
	info, err := parseStep(step)
	if err != nil {
		return nil
	}
	switch info.kind {
	case kindLoad:
		return []string{opInsert.Name}
	case kindIndex:
		return []string{opIndex.Name, opInsert.Name}
	case kindInsertDelete:
		return []string{opInsert.Name, opDelete.Name}
	case kindQuery:
		return []string{opInsert.Name, opDelete.Name, opQuery.Name}
	}
	return []string{opSettle.Name} // settle, cleanup
}
