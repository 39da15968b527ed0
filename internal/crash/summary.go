package crash

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// File is crash.json: the test's configuration, what the setting promises, each crash's result
// and the summary.
type File struct {
	Config   FileConfig        `json:"config"`
	Settings map[string]string `json:"settings"` // as the engine reported them
	Promise  string            `json:"promise"`
	Why      string            `json:"why"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished,omitzero"`
	Results  []Result          `json:"results"`
	Summary  Summary           `json:"summary"`
	Error    string            `json:"error,omitempty"`
}

// FileConfig is the part of Config that run.json-like provenance needs.
type FileConfig struct {
	Kind     string            `json:"kind"`
	Settings map[string]string `json:"settings"` // as given with --set
	Kill     string            `json:"kill"`
	DirSync  string            `json:"dir_sync,omitempty"` // the layer's model under kill power
	Crashes  int               `json:"crashes"`
	Clients  int               `json:"clients"`
	Batch    int               `json:"batch"`
	Seed     uint64            `json:"seed"`
	MinRunMS float64           `json:"min_run_ms"`
	MaxRunMS float64           `json:"max_run_ms"`
	Meta     map[string]any    `json:"meta,omitempty"`
}

func fileConfig(c Config) FileConfig {
	ds := ""
	if c.Kill == "power" {
		ds = c.DirSync
		if ds == "" {
			ds = "posix"
		}
	}
	return FileConfig{Kind: c.Kind, Settings: c.Settings, Kill: c.Kill, DirSync: ds, Crashes: c.Crashes, Clients: c.Clients,
		Batch: c.Batch, Seed: c.Seed, MinRunMS: ms(c.MinRun), MaxRunMS: ms(c.MaxRun), Meta: c.Meta}
}

// Summary is one setting's figures over its crashes.
type Summary struct {
	Crashes          int     `json:"crashes"`
	CommitsPerSec    float64 `json:"commits_per_sec"` // median over the crashes
	LostMin          int64   `json:"lost_min"`
	LostMedian       float64 `json:"lost_median"`
	LostMax          int64   `json:"lost_max"`
	Suffix           int     `json:"suffix"` // crashes whose loss was a suffix
	Holes            int     `json:"holes"`  // crashes whose loss left holes
	InFlight         int64   `json:"in_flight"`
	Unexpected       int64   `json:"unexpected"`
	Corrupt          int64   `json:"corrupt"`
	Duplicates       int64   `json:"duplicates"`
	Partial          int64   `json:"partial"`
	FailedRecoveries int     `json:"failed_recoveries"`
	RecoveryMSMedian float64 `json:"recovery_ms_median"`
	RecoveryMSMax    float64 `json:"recovery_ms_max"`
	LongestWindowMS  float64 `json:"longest_window_ms"`
	Resumable        int     `json:"resumable"` // crashes after which the last row says where to resume
	Verdict          string  `json:"verdict"`
	Broken           bool    `json:"broken"` // a durable setting lost, or a control saw nothing
}

// Broken says whether a crash broke a promise of durability: a lost commit, a corrupt,
// duplicated or unexplained row, or a failed recovery.
func (r Result) Broken() bool {
	return r.Lost > 0 || r.Corrupt > 0 || r.Duplicates > 0 || r.Unexpected > 0 || r.RecoveryFailed
}

// Line is one crash's line of output.
func (r Result) Line() string {
	s := fmt.Sprintf("crash %d after %.1fs: %d commits (%.0f/s), lost %d (%s", r.Crash, r.RunMS/1000, r.Acked, r.CommitsPerSec, r.Lost, r.Shape)
	if r.Lost > 0 {
		s += fmt.Sprintf(", %.0f ms window", r.WindowMS)
	}
	s += fmt.Sprintf("), in flight %d, corrupt %d, duplicates %d, recovery %.0f ms", r.InFlight, r.Corrupt, r.Duplicates, r.RecoveryMS)
	if r.RecoveryFailed {
		s += ", RECOVERY FAILED: " + r.RecoveryError
	}
	return s
}

// Summarize sums up results under what the setting promises.
func Summarize(rs []Result, promise string) Summary {
	s := Summary{Crashes: len(rs)}
	var rates, lost, rec []float64
	lossy := 0
	for i, r := range rs {
		rates, lost, rec = append(rates, r.CommitsPerSec), append(lost, float64(r.Lost)), append(rec, r.RecoveryMS)
		if i == 0 || r.Lost < s.LostMin {
			s.LostMin = r.Lost
		}
		s.LostMax = max(s.LostMax, r.Lost)
		switch r.Shape {
		case "suffix":
			s.Suffix++
		case "holes":
			s.Holes++
		}
		s.InFlight += r.InFlight
		s.Unexpected += r.Unexpected
		s.Corrupt += r.Corrupt
		s.Duplicates += r.Duplicates
		s.Partial += r.Partial
		if r.RecoveryFailed {
			s.FailedRecoveries++
		}
		if r.Resumable {
			s.Resumable++
		}
		s.LongestWindowMS = max(s.LongestWindowMS, r.WindowMS)
		s.RecoveryMSMax = max(s.RecoveryMSMax, r.RecoveryMS)
		if r.Broken() {
			lossy++
		}
	}
	s.CommitsPerSec, s.LostMedian, s.RecoveryMSMedian = median(rates), median(lost), median(rec)
	k := len(rs)
	switch {
	case k == 0:
		s.Verdict = "incomplete: no crash ran"
	case promise == Durable && lossy == 0:
		s.Verdict = fmt.Sprintf("durable: 0 lost in %d crashes", k)
	case promise == Durable:
		s.Broken = true
		s.Verdict = fmt.Sprintf("DURABILITY PROMISE BROKEN in %d of %d crashes: lost %d..%d, corrupt %d, duplicates %d, unexplained %d, failed recoveries %d; evidence kept in the crash directories",
			lossy, k, s.LostMin, s.LostMax, s.Corrupt, s.Duplicates, s.Unexpected, s.FailedRecoveries)
	case promise == Control && lossy > 0:
		s.Verdict = fmt.Sprintf("unsafe control: losses or failures in %d of %d crashes, as expected", lossy, k)
	case promise == Control:
		s.Broken = true
		s.Verdict = fmt.Sprintf("CONTROL SAW NO LOSS in %d crashes: this test may not be able to see losses", k)
	default:
		s.Verdict = fmt.Sprintf("no promise: losses or failures in %d of %d crashes", lossy, k)
	}
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Load reads a crash run directory's crash.json. A run that failed, stopped early or is still
// going has an "incomplete" verdict, whatever an older dbperf wrote.
func Load(dir string) (File, error) {
	var f File
	b, err := os.ReadFile(filepath.Join(dir, "crash.json"))
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, err
	}
	f.markIncomplete()
	return f, nil
}

// markIncomplete replaces the verdict of a run with an error or fewer crashes than asked:
// a run that did not finish proves no promise either way.
func (f *File) markIncomplete() {
	s := &f.Summary
	if f.Error == "" && s.Crashes > 0 && s.Crashes >= f.Config.Crashes {
		return
	}
	why := f.Error
	if why == "" && f.Finished.IsZero() {
		why = "not finished (still running, or stopped before it wrote its results)"
	} else if why == "" {
		why = "fewer crashes than asked"
	}
	if s.Broken {
		// A loss seen before the error still counts: keep it loud.
		s.Verdict = fmt.Sprintf("incomplete (%d of %d crashes): %s; %s", s.Crashes, f.Config.Crashes, why, s.Verdict)
		return
	}
	s.Verdict = fmt.Sprintf("incomplete (%d of %d crashes): %s", s.Crashes, f.Config.Crashes, why)
}

// WriteTable prints one line per crash run: what it bought and what it lost.
func WriteTable(w io.Writer, dirs []string, files []File) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\ttarget\tsettings\tkill\tcrashes\tcommits/s\tlost min\tmedian\tmax\tsuffix\tholes\tin flight\tcorrupt\tdup\tfailed rec\trecovery ms\twindow ms\tresumable\t")
	for i, f := range files {
		s := f.Summary
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.0f\t%d\t%g\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\t%.0f\t%d/%d\t\n",
			filepath.Base(dirs[i]), f.Config.Kind, settingsString(f.Settings, f.Config.Settings), f.Config.Kill, s.Crashes, s.CommitsPerSec,
			s.LostMin, s.LostMedian, s.LostMax, s.Suffix, s.Holes, s.InFlight, s.Corrupt, s.Duplicates, s.FailedRecoveries,
			s.RecoveryMSMedian, s.LongestWindowMS, s.Resumable, s.Crashes)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, f := range files {
		fmt.Fprintf(w, "%s: %s\n", filepath.Base(dirs[i]), f.Summary.Verdict)
	}
	return nil
}

// settingsString prints the engine's reported settings, or the requested ones.
func settingsString(got, asked map[string]string) string {
	m := got
	if len(m) == 0 {
		m = asked
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "defaults"
	}
	return strings.Join(parts, ",")
}

// killName is the kill, with the layer's directory model when it is not POSIX's.
func killName(c FileConfig) string {
	if c.DirSync == "file" {
		return c.Kill + " (file fsync keeps creation)"
	}
	return c.Kill
}

// WriteMarkdown prints the runs as docs/reliability.md's table: a pipe table, one row per run.
func WriteMarkdown(w io.Writer, files []File) {
	fmt.Fprintln(w, "| target | settings | kill | crashes | commits/s | lost min / median / max | suffix / holes | in flight | corrupt, dup | failed recoveries | recovery ms (median) | longest window ms | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, f := range files {
		s := f.Summary
		fmt.Fprintf(w, "| %s | %s | %s | %d | %.0f | %d / %g / %d | %d / %d | %d | %d, %d | %d | %.0f | %.0f | %s |\n",
			f.Config.Kind, settingsString(f.Config.Settings, nil), killName(f.Config), s.Crashes, s.CommitsPerSec,
			s.LostMin, s.LostMedian, s.LostMax, s.Suffix, s.Holes, s.InFlight, s.Corrupt, s.Duplicates, s.FailedRecoveries,
			s.RecoveryMSMedian, s.LongestWindowMS, s.Verdict)
	}
}
