package linkbench

// StepOps are the names of the op types a step records, known before any target is opened (so
// that `dbperf run` can refuse an SLA no step can judge); nil for an unknown step.
func StepOps(step string) []string {
	var names []string
	switch step {
	case StepLoad:
		for _, o := range loadOps {
			names = append(names, o.Name)
		}
	case StepRequest:
		for _, o := range requestOps {
			names = append(names, o.Name)
		}
	}
	return names
}
