package crash

import (
	"sort"
	"time"
)

// Result is what one crash did to the acknowledged commits. Transactions are the unit: with
// batches, a transaction is lost when any of its rows is missing.
type Result struct {
	Crash         int     `json:"crash"`
	RunMS         float64 `json:"run_ms"` // from the target's opening to the crash
	Acked         int64   `json:"acked"`  // acknowledged transactions
	AckedRows     int64   `json:"acked_rows"`
	CommitsPerSec float64 `json:"commits_per_sec"` // acknowledged transactions in the second before the crash, per second
	// CommitsPerSecRun is the mean over the whole run, from the opening (it includes the
	// clients' start).
	CommitsPerSecRun float64 `json:"commits_per_sec_run"`
	Lost             int64   `json:"lost"` // acknowledged transactions missing after recovery
	LostRows         int64   `json:"lost_rows"`
	// Shape is "none", "suffix" (the lost ones are each client's most recent acknowledged
	// ones: an application can replay them) or "holes" (older commits are missing too).
	Shape      string  `json:"shape"`
	Holes      int64   `json:"holes"`     // lost transactions older than a transaction present
	Partial    int64   `json:"partial"`   // transactions with only some of their rows present
	InFlight   int64   `json:"in_flight"` // rows present that were never acknowledged (allowed)
	Unexpected int64   `json:"unexpected"`
	Corrupt    int64   `json:"corrupt"`
	Duplicates int64   `json:"duplicates"`
	WindowMS   float64 `json:"window_ms"` // from the oldest lost commit's acknowledgement to the crash
	// Resumable: each client's rows present are 1..m, so the last one says where to resume.
	Resumable      bool    `json:"resumable"`
	RecoveryMS     float64 `json:"recovery_ms"`
	RecoveryFailed bool    `json:"recovery_failed"`
	RecoveryError  string  `json:"recovery_error,omitempty"`
	// Missing are the lost transactions, as ranges per client: the evidence (missing.json).
	Missing []MissingRange `json:"-"`
}

// MissingRange is a run of one client's consecutive acknowledged transactions that are missing
// after recovery, with the instants the first and last were acknowledged.
type MissingRange struct {
	Client       int       `json:"client"`
	First        int64     `json:"first_seq"`
	Last         int64     `json:"last_seq"`
	Transactions int       `json:"transactions"`
	FirstAcked   time.Time `json:"first_acked"`
	LastAcked    time.Time `json:"last_acked"`
}

// lastSecond is the window commits/s counts: the second before the crash, or the whole run
// when it was shorter.
const lastSecond = time.Second

// addMissing appends client c's lost transactions (in sequence order) as ranges.
func addMissing(ms []MissingRange, c int, lost []Ack) []MissingRange {
	for i, a := range lost {
		if i > 0 {
			if m := &ms[len(ms)-1]; m.Client == c && m.Last+1 == a.First {
				m.Last, m.LastAcked = a.Last, a.At
				m.Transactions++
				continue
			}
		}
		ms = append(ms, MissingRange{Client: c, First: a.First, Last: a.Last, Transactions: 1, FirstAcked: a.At, LastAcked: a.At})
	}
	return ms
}

// Analyze compares the acknowledgements of each client (acks[c]) with what was read back.
// opened and crashed are the instants the target was ready and was crashed; batch is the rows
// per transaction, which bounds what may be in flight.
func Analyze(acks map[int][]Ack, v Verified, opened, crashed time.Time, batch int) Result {
	r := Result{RunMS: ms(crashed.Sub(opened)), RecoveryMS: v.RecoveryMS, Duplicates: v.Duplicates, Corrupt: int64(len(v.Corrupt)), Shape: "none", Resumable: true}
	if v.Error != "" {
		r.RecoveryFailed, r.RecoveryError, r.Resumable = true, v.Error, false
	}
	if r.Corrupt > 0 || r.Duplicates > 0 {
		r.Resumable = false
	}
	from := crashed.Add(-lastSecond)
	if from.Before(opened) {
		from = opened
	}
	var recent int64
	var oldestLost time.Time
	for _, c := range clientIDs(acks, v.Present) {
		recent += r.addClient(c, acks[c], v.Present[c], from, crashed, batch, &oldestLost)
	}
	r.InFlight -= r.Unexpected
	if r.Lost > 0 {
		r.Shape = "suffix"
		if r.Holes > 0 || r.Partial > 0 {
			r.Shape = "holes"
		}
		r.WindowMS = ms(crashed.Sub(oldestLost))
	}
	if r.RunMS > 0 {
		r.CommitsPerSecRun = float64(r.Acked) / (r.RunMS / 1000)
	}
	if w := crashed.Sub(from); w > 0 {
		r.CommitsPerSec = float64(recent) / w.Seconds()
	}
	return r
}

// clientIDs are the clients that were acknowledged or have rows present, in order.
func clientIDs(acks map[int][]Ack, present map[int][][2]int64) []int {
	clients := map[int]bool{}
	for c := range acks {
		clients[c] = true
	}
	for c := range present {
		clients[c] = true
	}
	ids := make([]int, 0, len(clients))
	for c := range clients {
		ids = append(ids, c)
	}
	sort.Ints(ids)
	return ids
}

// addClient counts client c's acknowledged transactions (acks) against its rows present (pr):
// the lost, partial and holes among them, the rows in flight and unexpected. It returns how
// many were acknowledged in (from, crashed], and moves oldestLost back to the acknowledgement
// of its oldest lost one.
func (r *Result) addClient(c int, acks []Ack, pr [][2]int64, from, crashed time.Time, batch int, oldestLost *time.Time) (recent int64) {
	var ackedRows, top int64
	maxPresentAcked := int64(0)
	var lost []Ack
	for _, a := range acks {
		r.Acked++
		if a.At.After(from) && !a.At.After(crashed) {
			recent++
		}
		n := a.Last - a.First + 1
		ackedRows += n
		r.AckedRows += n
		top = max(top, a.Last)
		have := countIn(pr, a.First, a.Last)
		switch {
		case have == n:
			maxPresentAcked = max(maxPresentAcked, a.Last)
		case have > 0:
			r.Partial++
			fallthrough
		default:
			lost = append(lost, a)
			r.LostRows += n - have
		}
	}
	r.Lost += int64(len(lost))
	r.Missing = addMissing(r.Missing, c, lost)
	for _, a := range lost {
		if a.Last < maxPresentAcked {
			r.Holes++
		}
		if oldestLost.IsZero() || a.At.Before(*oldestLost) {
			*oldestLost = a.At
		}
	}
	present := total(pr)
	inAcked := ackedRows - (countMissing(acks, pr))
	r.InFlight += present - inAcked
	// Rows beyond the next transaction were never attempted: they cannot be in flight.
	r.Unexpected += present - countIn(pr, 1, top+int64(max(batch, 1)))
	if len(pr) > 1 || (len(pr) == 1 && pr[0][0] != 1) {
		r.Resumable = false
	}
	return recent
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// countIn counts the rows of the sorted ranges rs within [lo, hi].
func countIn(rs [][2]int64, lo, hi int64) int64 {
	i := sort.Search(len(rs), func(i int) bool { return rs[i][1] >= lo })
	var n int64
	for ; i < len(rs) && rs[i][0] <= hi; i++ {
		n += min(rs[i][1], hi) - max(rs[i][0], lo) + 1
	}
	return n
}

func total(rs [][2]int64) (n int64) {
	for _, r := range rs {
		n += r[1] - r[0] + 1
	}
	return n
}

// countMissing counts the acknowledged rows that are not present.
func countMissing(acks []Ack, rs [][2]int64) (n int64) {
	for _, a := range acks {
		n += a.Last - a.First + 1 - countIn(rs, a.First, a.Last)
	}
	return n
}
