package crash

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

func acksOf(at time.Time, lastSeq int64, batch int64) []Ack {
	var a []Ack
	for s := int64(1); s+batch-1 <= lastSeq; s += batch {
		a = append(a, Ack{First: s, Last: s + batch - 1, At: at.Add(time.Duration(s) * time.Millisecond)})
	}
	return a
}

func TestAnalyzeSuffixInFlightAndWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	crashed := t0.Add(2 * time.Second)
	acks := map[int][]Ack{0: acksOf(t0, 100, 1), 1: acksOf(t0, 50, 1)}
	// client 0 lost 91..100 and has nothing in flight; client 1 lost nothing, row 51 in flight.
	v := Verified{Present: map[int][][2]int64{0: {{1, 90}}, 1: {{1, 51}}}}
	r := Analyze(acks, v, t0, crashed, 1)
	if r.Acked != 150 || r.Lost != 10 || r.Shape != "suffix" || r.Holes != 0 || r.InFlight != 1 || r.Unexpected != 0 {
		t.Fatalf("got %+v", r)
	}
	if !r.Resumable {
		t.Errorf("a suffix loss with rows 1..m present is resumable: %+v", r)
	}
	if want := 2000.0 - 91; r.WindowMS != want {
		t.Errorf("window %v ms, want %v (crash minus the oldest lost commit's acknowledgement)", r.WindowMS, want)
	}
	if r.CommitsPerSecRun != 75 || r.CommitsPerSec != 0 {
		t.Errorf("commits/s %v in the last second, %v over the run; want 0 (every ack came in the first 100 ms) and 75", r.CommitsPerSec, r.CommitsPerSecRun)
	}
	want := []MissingRange{{Client: 0, First: 91, Last: 100, Transactions: 10, FirstAcked: t0.Add(91 * time.Millisecond), LastAcked: t0.Add(100 * time.Millisecond)}}
	if !reflect.DeepEqual(r.Missing, want) {
		t.Errorf("missing %+v, want %+v", r.Missing, want)
	}
}

// commits/s counts the acknowledgements of the second before the crash; the run's mean is the
// second figure. The lost transactions are kept as ranges per client with their times.
func TestAnalyzeLastSecondRateAndMissingRanges(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var acks []Ack
	for s := int64(1); s <= 250; s++ {
		at := t0.Add(time.Duration(s) * 5 * time.Millisecond) // 200 in the first second
		if s > 200 {
			at = t0.Add(time.Second + time.Duration(s-200)*20*time.Millisecond) // 50 in the second
		}
		acks = append(acks, Ack{First: s, Last: s, At: at})
	}
	// Transaction 100 is a hole; 241..250 are the lost suffix.
	v := Verified{Present: map[int][][2]int64{0: {{1, 99}, {101, 240}}}}
	r := Analyze(map[int][]Ack{0: acks}, v, t0, t0.Add(2*time.Second), 1)
	if r.CommitsPerSec != 50 || r.CommitsPerSecRun != 125 {
		t.Errorf("commits/s %v in the last second, %v over the run; want 50 and 125", r.CommitsPerSec, r.CommitsPerSecRun)
	}
	want := []MissingRange{
		{Client: 0, First: 100, Last: 100, Transactions: 1, FirstAcked: acks[99].At, LastAcked: acks[99].At},
		{Client: 0, First: 241, Last: 250, Transactions: 10, FirstAcked: acks[240].At, LastAcked: acks[249].At},
	}
	if r.Lost != 11 || r.Shape != "holes" || !reflect.DeepEqual(r.Missing, want) {
		t.Errorf("lost %d (%s), missing %+v, want 11 (holes), %+v", r.Lost, r.Shape, r.Missing, want)
	}
	// A run shorter than a second is its own window.
	r = Analyze(map[int][]Ack{0: acks}, Verified{Present: map[int][][2]int64{0: {{1, 250}}}}, t0, t0.Add(500*time.Millisecond), 1)
	if r.CommitsPerSec != 200 {
		t.Errorf("commits/s %v over a 500 ms run with 100 acks, want 200", r.CommitsPerSec)
	}
}

func TestAnalyzeHolesPartialCorruptUnexpected(t *testing.T) {
	t0 := time.Unix(1000, 0)
	acks := map[int][]Ack{0: acksOf(t0, 20, 2)} // ten transactions of two rows
	// rows 5..6 missing (a hole), row 10 missing (a partial transaction 9..10), 30 never attempted.
	v := Verified{Present: map[int][][2]int64{0: {{1, 4}, {7, 9}, {11, 20}, {30, 30}}},
		Corrupt: []RowID{{0, 3}}, Duplicates: 1}
	r := Analyze(acks, v, t0, t0.Add(time.Second), 2)
	if r.Lost != 2 || r.LostRows != 3 || r.Shape != "holes" || r.Holes != 2 || r.Partial != 1 {
		t.Fatalf("got %+v", r)
	}
	if r.Unexpected != 1 || r.InFlight != 0 || r.Corrupt != 1 || r.Duplicates != 1 || r.Resumable {
		t.Fatalf("got %+v", r)
	}
	if !r.Broken() {
		t.Error("a loss must break a durability promise")
	}
}

func TestAnalyzeFailedRecovery(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := Analyze(map[int][]Ack{0: acksOf(t0, 3, 1)}, Verified{Error: "open: corrupt"}, t0, t0.Add(time.Second), 1)
	if !r.RecoveryFailed || r.Lost != 3 || r.Resumable || !r.Broken() {
		t.Fatalf("got %+v", r)
	}
}

func TestSummarizeVerdicts(t *testing.T) {
	clean := []Result{{Shape: "none"}, {Shape: "none"}}
	if s := Summarize(clean, Durable); s.Broken || s.Verdict != "durable: 0 lost in 2 crashes" {
		t.Errorf("clean durable: %+v", s)
	}
	lossy := []Result{{Lost: 3, Shape: "suffix", WindowMS: 40}, {Lost: 7, Shape: "suffix", WindowMS: 90}, {Lost: 5, Shape: "holes"}}
	s := Summarize(lossy, Durable)
	if !s.Broken || s.LostMin != 3 || s.LostMedian != 5 || s.LostMax != 7 || s.LongestWindowMS != 90 || s.Suffix != 2 || s.Holes != 1 {
		t.Errorf("lossy durable: %+v", s)
	}
	if s := Summarize(clean, Control); !s.Broken {
		t.Errorf("a control without loss must be flagged: %+v", s)
	}
	if s := Summarize(lossy, Control); s.Broken {
		t.Errorf("a control with losses is as expected: %+v", s)
	}
}

func TestRanges(t *testing.T) {
	r, d := ranges([]int64{5, 1, 2, 2, 3, 7})
	if d != 1 || len(r) != 3 || r[0] != [2]int64{1, 3} || r[1] != [2]int64{5, 5} || r[2] != [2]int64{7, 7} {
		t.Fatalf("got %v %d", r, d)
	}
}

// Settings that matter only for torn writes are refused under a power cut, and the known
// controls are named as such.
func TestPromises(t *testing.T) {
	for _, tc := range []struct {
		kind, kill string
		settings   map[string]string
		want       string
	}{
		{"postgres", "power", map[string]string{"full_page_writes": "off"}, Refused},
		{"mariadb-innodb", "power", map[string]string{"innodb_doublewrite": "0"}, Refused},
		{"postgres", "power", map[string]string{"fsync": "off"}, Control},
		{"postgres", "process", map[string]string{"fsync": "off"}, Durable},
		{"postgres", "power", nil, Durable},
		{"postgres", "process", map[string]string{"synchronous_commit": "off"}, NoClaim},
		{"mariadb-innodb", "process", map[string]string{"innodb_flush_log_at_trx_commit": "2"}, Durable},
		{"mariadb-innodb", "power", map[string]string{"innodb_flush_log_at_trx_commit": "2"}, NoClaim},
		{"mariadb-myrocks", "power", nil, Durable},
		{"sqlite", "power", map[string]string{"synchronous": "OFF"}, Control},
		{"sqlite", "power", map[string]string{"synchronous": "NORMAL", "journal_mode": "WAL"}, NoClaim},
		{"sqlite", "process", map[string]string{"synchronous": "OFF"}, Durable},
		{"pebble", "process", map[string]string{"sync": "false"}, NoClaim},
		{"bbolt", "power", map[string]string{"NoSync": "true"}, Control},
	} {
		if got, why := Promise(tc.kind, tc.settings, tc.kill); got != tc.want {
			t.Errorf("%s %v under %s: %s (%s), want %s", tc.kind, tc.settings, tc.kill, got, why, tc.want)
		}
	}
}

// A record cut short by the kill is not an acknowledgement: the commit was never reported.
func TestReadAcksIgnoresTornRecord(t *testing.T) {
	dir := t.TempDir()
	log, err := CreateAckLog(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	log.Ack(1, 1)
	log.Ack(2, 3)
	log.f.Write(make([]byte, ackRecord/2)) // a write cut by SIGKILL
	log.Close()
	acks, err := ReadAcks(dir, 0)
	if err != nil || len(acks) != 2 || acks[1].First != 2 || acks[1].Last != 3 {
		t.Fatalf("got %+v, %v", acks, err)
	}
}

// A recovering process that dies (a panic while opening a corrupt database) is a failed
// recovery with its standard error kept, not a failed test.
func TestVerifierDeathIsFailedRecovery(t *testing.T) {
	dir := t.TempDir()
	spec := ChildSpec{Mode: "verify", Out: dir + "/verify.json"}
	v, err := runVerify(context.Background(), Config{Child: []string{"/bin/sh", "-c", "echo 'panic: page 7 already freed' >&2; exit 2"}}, spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Error, "page 7 already freed") {
		t.Fatalf("error %q", v.Error)
	}
}
