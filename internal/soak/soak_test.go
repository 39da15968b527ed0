package soak

import (
	"bufio"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSoak runs `dbperf run insert` open loop on SQLite for DBPERF_SOAK (e.g. 10m) of qr100 and
// checks that dbperf's RSS stays flat (the last minute's median within 10% of the second
// minute's) and that every per-second row comes on time: intervals.csv has a row for every
// second, each covering one second, and each live line is printed before the next second ends
// (on a shared machine its delay varies; the test reports the distribution).
func TestSoak(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("DBPERF_SOAK"))
	if err != nil || d < 3*time.Minute {
		t.Skip("set DBPERF_SOAK to a duration of at least 3m to run the soak test")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "dbperf")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/dbperf").CombinedOutput(); err != nil {
		t.Fatalf("building dbperf: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "run")
	cmd := exec.Command(bin, "run", "insert", "--target", "sqlite:"+filepath.Join(dir, "soak.db"), "--steps", "l.i0,l.x,qr100",
		"--q-seconds", strconv.Itoa(int(d.Seconds())), "--arrival", "poisson", "--rate", "2000", "--out", out)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rss := sampleRSS(cmd.Process.Pid)
	var arrivals []time.Time // of the qr100 step's live lines
	in := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "== step qr100"):
			in = true
		case strings.HasPrefix(line, "-- qr100"):
			in = false
		case in && len(f) > 2 && isNumber(f[0]): // a live line: t_sec first
			arrivals = append(arrivals, time.Now())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	samples := <-rss
	ends := intervalEnds(t, filepath.Join(out, "qr100", "intervals.csv"))
	report(t, d, samples, arrivals, ends)
}

func isNumber(s string) bool { _, err := strconv.ParseFloat(s, 64); return err == nil }

// sampleRSS reads pid's resident set (KiB) every second until it exits.
func sampleRSS(pid int) <-chan []int {
	ch := make(chan []int, 1)
	go func() {
		var s []int
		for range time.Tick(time.Second) {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
			if err != nil {
				break
			}
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
					kb, _ := strconv.Atoi(f[1])
					if kb == 0 { // a zombie
						ch <- s
						return
					}
					s = append(s, kb)
				}
			}
		}
		ch <- s
	}()
	return ch
}

// intervalEnds reads each row's end (unix_ms) and checks that no second is missing.
func intervalEnds(t *testing.T, path string) []time.Time {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "unix_ms")
	isec := slices.Index(rows[0], "interval_sec")
	var ends []time.Time
	for i, r := range rows[1:] {
		ms, _ := strconv.ParseInt(r[col], 10, 64)
		ends = append(ends, time.UnixMilli(ms))
		if sec, _ := strconv.ParseFloat(r[isec], 64); sec > 1.01 || (sec < 0.99 && i < len(rows)-2) {
			t.Errorf("row %d covers %.3f s, not one second", i+1, sec)
		}
	}
	return ends
}

func report(t *testing.T, d time.Duration, rss []int, arrivals, ends []time.Time) {
	if len(rss) < 180 {
		t.Fatalf("only %d RSS samples", len(rss))
	}
	med := func(xs []int) int { s := slices.Clone(xs); slices.Sort(s); return s[len(s)/2] }
	early, late := med(rss[60:120]), med(rss[len(rss)-60:])
	t.Logf("RSS KiB: minute 2 median %d, last minute median %d, max %d, samples %d", early, late, slices.Max(rss), len(rss))
	if float64(late) > 1.1*float64(early) {
		t.Errorf("RSS grew from %d to %d KiB", early, late)
	}
	if want := int(d.Seconds()); len(ends) < want {
		t.Errorf("%d rows in intervals.csv, want every second's: %d", len(ends), want)
	}
	n := min(len(arrivals), len(ends))
	if n == 0 {
		t.Fatalf("no live line of qr100 (%d) or no row (%d)", len(arrivals), len(ends))
	}
	var lates []time.Duration
	for i := range n {
		lates = append(lates, arrivals[i].Sub(ends[i]))
	}
	slices.Sort(lates)
	t.Logf("live line after its interval's end: median %v, p99 %v, max %v (%d lines, %d rows)",
		lates[len(lates)/2], lates[len(lates)*99/100], lates[len(lates)-1], len(arrivals), len(ends))
	if lates[len(lates)-1] > time.Second {
		t.Errorf("a per-second line came %v after its interval's end", lates[len(lates)-1])
	}
}
