package script

import (
	"fmt"
	"regexp"
	"slices"
)

// opNameForm is what an op type's name may hold: what --sla's OP reads (measure.ParseSLA), and
// no comma, space or line break, which the archive's histogram log refuses as a tag at the
// end of a step.
var opNameForm = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// checkNames refuses, before any work, a script whose op type would be unusable or ambiguous:
// a name with other characters, a reserved op type (failed, connect), a name two scripts
// share (a file named after a built-in that also runs, one built-in twice). With
// --per-statement the op types are NAME.N, N digits: the last dot splits one back into NAME
// and N, so distinct names make distinct op types (TestScriptNames), "a.1" and "a" included.
func checkNames(sources []Source) []error {
	var errs []error
	names := make([]string, 0, len(sources))
	for _, s := range sources {
		name := s.Name
		if s.Builtin != "" {
			full, _, err := BuiltinText(s.Builtin, "postgres")
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if name == "" {
				name = full
			}
		}
		switch {
		case !opNameForm.MatchString(name):
			errs = append(errs, fmt.Errorf("script name %q: an op type holds only letters, digits, _, . and -: give --name NAME or rename the file", name))
		case name == FailedOp || name == ConnectOp:
			errs = append(errs, fmt.Errorf("script name %q is the op type of dbperf's own %s operations: give --name NAME or rename the file", name, name))
		case slices.Contains(names, name):
			errs = append(errs, fmt.Errorf("two scripts are named %s: give the file another name (or --name NAME), or run the script once with a larger @weight", name))
		}
		names = append(names, name)
	}
	return errs
}
