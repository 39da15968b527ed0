package crash

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// ChildEnv names the environment variable that carries a child's ChildSpec as JSON: the child
// is dbperf itself (or a test binary) started again, so the engine dies with it.
const ChildEnv = "DBPERF_CRASH_CHILD"

// ChildSpec is what a child process does: "create" opens the target and closes it; "write" opens the target and inserts until it is
// killed; "verify" opens it again (crash recovery, timed), reads every row and writes a Verified
// to Out.
type ChildSpec struct {
	Mode     string            `json:"mode"`
	Kind     string            `json:"kind"`
	Dir      string            `json:"dir"`
	Settings map[string]string `json:"settings"`
	AckDir   string            `json:"ack_dir,omitempty"`
	Clients  int               `json:"clients,omitempty"`
	Batch    int               `json:"batch,omitempty"`
	Seed     uint64            `json:"seed,omitempty"`
	Out      string            `json:"out,omitempty"`
	Fresh    bool              `json:"fresh,omitempty"` // create: drop the server's table first
}

// Verified is what a verify child read back.
type Verified struct {
	RecoveryMS float64           `json:"recovery_ms"`
	Error      string            `json:"error,omitempty"` // the open or the read failed
	Settings   map[string]string `json:"settings,omitempty"`
	// Present holds each client's rows as sorted, disjoint ranges [first, last].
	Present    map[int][][2]int64 `json:"present"`
	Corrupt    []RowID            `json:"corrupt,omitempty"`
	Duplicates int64              `json:"duplicates"`
}

// RowID names a row.
type RowID struct {
	Client int   `json:"client"`
	Seq    int64 `json:"seq"`
}

// ChildMain runs the child that the environment describes, if any, and exits; a binary calls it
// first thing (dbperf's `crash child`, a test's TestMain).
func ChildMain() {
	js := os.Getenv(ChildEnv)
	if js == "" {
		return
	}
	var spec ChildSpec
	err := json.Unmarshal([]byte(js), &spec)
	if err == nil {
		switch spec.Mode {
		case "create":
			err = create(spec)
		case "write":
			err = write(spec)
		case "verify":
			err = verify(spec)
		default:
			err = fmt.Errorf("unknown mode %q", spec.Mode)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// create opens the target (a new table on a server with Fresh) and closes it.
func create(spec ChildSpec) error {
	st, err := OpenStore(spec.Kind, spec.Dir, spec.Settings)
	if err != nil {
		return err
	}
	if r, ok := st.(interface{ Reset() error }); ok && spec.Fresh {
		if err := r.Reset(); err != nil {
			st.Close()
			return err
		}
		st.Close()
		if st, err = OpenStore(spec.Kind, spec.Dir, spec.Settings); err != nil {
			return err
		}
	}
	if c, ok := st.(interface{ Checkpoint() error }); ok {
		if err := c.Checkpoint(); err != nil {
			st.Close()
			return err
		}
	}
	return st.Close()
}

// write inserts rows from every client until the process is killed; "ready" on standard output
// tells the parent that the target is open.
func write(spec ChildSpec) error {
	st, err := OpenStore(spec.Kind, spec.Dir, spec.Settings)
	if err != nil {
		return err
	}
	js, _ := json.Marshal(st.Settings())
	fmt.Printf("ready %s\n", js)
	errs := make(chan error, spec.Clients)
	for c := range spec.Clients {
		log, err := CreateAckLog(spec.AckDir, c)
		if err != nil {
			return err
		}
		go func() { errs <- insertLoop(st, log, c, spec) }()
	}
	err = <-errs // a client that stops is an error: the parent meant to kill us first
	return fmt.Errorf("insert stopped before the crash: %w", err)
}

// insertLoop commits batches of rows and acknowledges each after the commit returned.
func insertLoop(st Store, log *AckLog, client int, spec ChildSpec) error {
	batch := max(spec.Batch, 1)
	rows := make([]Row, batch)
	for seq := int64(1); ; seq += int64(batch) {
		for i := range rows {
			s := seq + int64(i)
			rows[i] = Row{Client: client, Seq: s, Payload: payloadFor(spec.Seed, client, s)}
		}
		if err := st.Insert(rows); err != nil {
			return fmt.Errorf("client %d, rows %d..%d: %w", client, seq, seq+int64(batch)-1, err)
		}
		if err := log.Ack(seq, seq+int64(batch)-1); err != nil {
			return err
		}
	}
}

// verify opens the target again, which runs its crash recovery, and reads it back.
func verify(spec ChildSpec) error {
	v := Verified{Present: map[int][][2]int64{}}
	start := time.Now()
	st, err := OpenStore(spec.Kind, spec.Dir, spec.Settings)
	v.RecoveryMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		v.Error = "open: " + err.Error()
	} else {
		v.Settings = st.Settings()
		seqs := map[int][]int64{}
		err = st.ReadAll(func(c int, seq int64, ok bool) {
			if !ok {
				v.Corrupt = append(v.Corrupt, RowID{c, seq})
				return
			}
			seqs[c] = append(seqs[c], seq)
		})
		if err != nil {
			v.Error = "read back: " + err.Error()
		}
		for c, s := range seqs {
			var dups int64
			v.Present[c], dups = ranges(s)
			v.Duplicates += dups
		}
		if err := st.Close(); err != nil && v.Error == "" {
			v.Error = "close: " + err.Error()
		}
	}
	js, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(spec.Out, js, 0o644)
}

// ranges sorts seqs and returns them as disjoint ranges, and how many were repeats.
func ranges(seqs []int64) (r [][2]int64, dups int64) {
	slices.Sort(seqs)
	for i, s := range seqs {
		switch {
		case i > 0 && s == seqs[i-1]:
			dups++
		case len(r) > 0 && r[len(r)-1][1] == s-1:
			r[len(r)-1][1] = s
		default:
			r = append(r, [2]int64{s, s})
		}
	}
	return r, dups
}
