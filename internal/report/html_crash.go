package report

import (
	"fmt"
	"sort"
)

// CrashRun is a crash run's summary (dbperf crash: crash.json), as the report shows it: one
// row per setting and kill. The command reads crash.json with the crash package and fills it,
// so that the report depends on no engine.
type CrashRun struct {
	Name, Target, Settings, Kill string
	Crashes                      int
	CommitsPerSec                float64
	LostMin                      int64
	LostMedian                   float64
	LostMax                      int64
	Suffix, Holes                int
	InFlight, Corrupt, Dup       int64
	FailedRecoveries             int
	RecoveryMSMedian             float64
	LongestWindowMS              float64
	Verdict                      string
	Broken                       bool // a durable setting lost, or a control saw nothing
}

// htmlCrash is the page's section of crash runs.
type htmlCrash struct {
	Header []string
	Rows   []htmlCrashRow
	Broken int
}

type htmlCrashRow struct {
	Head    []string // target, settings, kill
	Cells   []string // the figures
	Run     string   // its directory's name
	Verdict string
	Class   string // better: durable; worse: a broken promise
}

// crashSection is the table of crash runs, sorted by target, settings and kill as the
// directories of dbperf crash table are.
func crashSection(runs []CrashRun) *htmlCrash {
	if len(runs) == 0 {
		return nil
	}
	rs := append([]CrashRun(nil), runs...)
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Target != rs[j].Target {
			return rs[i].Target < rs[j].Target
		}
		if rs[i].Settings != rs[j].Settings {
			return rs[i].Settings < rs[j].Settings
		}
		return rs[i].Kill < rs[j].Kill
	})
	c := &htmlCrash{Header: []string{"target", "settings", "kill", "verdict", "crashes", "commits/s", "lost min / median / max",
		"suffix / holes", "in flight", "corrupt, dup", "failed recoveries", "recovery ms (median)", "longest window ms", "run"}}
	for _, r := range rs {
		row := htmlCrashRow{Verdict: r.Verdict, Head: []string{r.Target, r.Settings, r.Kill}, Cells: []string{fmt.Sprint(r.Crashes),
			fmt.Sprintf("%.0f", r.CommitsPerSec), fmt.Sprintf("%d / %g / %d", r.LostMin, r.LostMedian, r.LostMax),
			fmt.Sprintf("%d / %d", r.Suffix, r.Holes), fmt.Sprint(r.InFlight), fmt.Sprintf("%d, %d", r.Corrupt, r.Dup),
			fmt.Sprint(r.FailedRecoveries), fmt.Sprintf("%.0f", r.RecoveryMSMedian), fmt.Sprintf("%.0f", r.LongestWindowMS)}, Run: r.Name}
		switch {
		case r.Broken:
			row.Class = "worse"
			c.Broken++
		case r.LostMax == 0 && r.FailedRecoveries == 0:
			row.Class = "better"
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}
