package script

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload"
)

// TestInitOptionsValidate: each bad init option is refused with what to do, pgbench's range
// and rules (pgbench.c:5224-5237, 6901-6906, 6993-7009, 7103-7108); a zero InitOptions is
// pgbench's defaults.
func TestInitOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o    InitOptions
		want string
	}{
		{InitOptions{}, ""},
		{InitOptions{Steps: "dt gvp f", Fillfactor: 10, Partitions: 2, PartitionMethod: "hash"}, ""},
		{InitOptions{Steps: "  "}, "--init-steps has no step"},
		{InitOptions{Steps: "dtx"}, `unknown step 'x'`},
		{InitOptions{Fillfactor: 9}, "--fillfactor must be 10 to 100, as pgbench's -F (got 9)"},
		{InitOptions{Fillfactor: 101}, "(got 101)"},
		{InitOptions{Partitions: -1}, "--partitions must be 0 (none) or more (got -1)"},
		{InitOptions{Partitions: 2, PartitionMethod: "list"}, `--partition-method "list": give range or hash`},
		{InitOptions{PartitionMethod: "hash"}, "--partition-method needs --partitions greater than 0"},
	} {
		cfg := DefaultConfig()
		cfg.Sources, cfg.Steps, cfg.Init = []Source{{Builtin: "tpcb-like", Weight: 1}}, []string{StepInit, StepRun}, tc.o
		err := cfg.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.o, err, tc.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Sources, cfg.Init.Fillfactor = []Source{{Builtin: "tpcb-like", Weight: 1}}, 90
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "add init to --steps") {
		t.Errorf("--fillfactor without the init step: %v", err)
	}
}

// TestCreateSQL: the t step's statements are pgbench's (initCreateTables, createPartitions):
// fillfactor on tellers, accounts and branches, or accounts partitioned by aid with the
// fillfactor on each partition; range bounds of (100000 × scale + n - 1) / n rows.
func TestCreateSQL(t *testing.T) {
	got := createSQL("postgres", 1, InitOptions{Fillfactor: 90, Partitions: 3, PartitionMethod: "range"})
	want := []string{
		"CREATE TABLE pgbench_history(tid int,bid int,aid int,delta int,mtime timestamp,filler char(22))",
		"CREATE TABLE pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) WITH (fillfactor=90)",
		"CREATE TABLE pgbench_accounts(aid int not null,bid int,abalance int,filler char(84)) PARTITION BY RANGE (aid)",
		"CREATE TABLE pgbench_branches(bid int not null,bbalance int,filler char(88)) WITH (fillfactor=90)",
		"CREATE TABLE pgbench_accounts_1 PARTITION OF pgbench_accounts FOR VALUES FROM (MINVALUE) TO (33335) WITH (fillfactor=90)",
		"CREATE TABLE pgbench_accounts_2 PARTITION OF pgbench_accounts FOR VALUES FROM (33335) TO (66669) WITH (fillfactor=90)",
		"CREATE TABLE pgbench_accounts_3 PARTITION OF pgbench_accounts FOR VALUES FROM (66669) TO (MAXVALUE) WITH (fillfactor=90)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("range:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = partitionSQL(20000, InitOptions{Fillfactor: 100, Partitions: 2, PartitionMethod: "hash"})
	want = []string{
		"CREATE TABLE pgbench_accounts_1 PARTITION OF pgbench_accounts FOR VALUES WITH (MODULUS 2, REMAINDER 0) WITH (fillfactor=100)",
		"CREATE TABLE pgbench_accounts_2 PARTITION OF pgbench_accounts FOR VALUES WITH (MODULUS 2, REMAINDER 1) WITH (fillfactor=100)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hash:\n%s", strings.Join(got, "\n"))
	}
	my := createSQL("mysql", 20000, InitOptions{Fillfactor: 100})
	if my[2] != "CREATE TABLE pgbench_accounts(aid bigint not null,bid int,abalance int,filler char(84), PRIMARY KEY (aid))" {
		t.Errorf("mysql at scale 20000: %s", my[2])
	}
}

// TestInitRefusedOffPostgres: what only PostgreSQL has is refused on MySQL and SQLite, one
// sentence each, before any work.
func TestInitRefusedOffPostgres(t *testing.T) {
	for _, tc := range []struct {
		o    InitOptions
		want string
	}{
		{InitOptions{Fillfactor: 90}, "--fillfactor is PostgreSQL's table storage parameter; mysql has none per table"},
		{InitOptions{Partitions: 2}, "run on PostgreSQL only, not mysql"},
		{InitOptions{Steps: "dtGvp"}, "--init-steps G generates the rows with PostgreSQL's generate_series"},
		{InitOptions{Steps: "dtgvpf"}, "--init-steps f adds pgbench's foreign keys"},
	} {
		cfg := DefaultConfig()
		cfg.Sources, cfg.Steps, cfg.Init = []Source{{Builtin: "tpcb-like", Weight: 1}}, []string{StepInit}, tc.o
		if _, err := New(cfg, &fakeStore{dialect: "mysql"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.o, err, tc.want)
		}
		if _, err := New(cfg, &fakeStore{dialect: "postgres"}); err != nil {
			t.Errorf("%+v on postgres: %v", tc.o, err)
		}
	}
}

// TestInitTasks: the letters run in their order, each one operation but g (a first operation,
// then the accounts in batches); p does nothing where the keys come with the tables.
func TestInitTasks(t *testing.T) {
	for _, tc := range []struct {
		dialect, steps string
		want           []measure.Op
	}{
		{"postgres", "dtgvp", append(append([]measure.Op{opDrop, opCreate, opGenerate}, repeatOp(opLoad, 20)...), opVacuum, opPrimaryKeys)},
		{"postgres", "dt Gpf", []measure.Op{opDrop, opCreate, opLoad, opPrimaryKeys, opForeignKeys}},
		{"mysql", "dtgvp", append(append([]measure.Op{opDrop, opCreate, opGenerate}, repeatOp(opLoad, 20)...), opVacuum)},
	} {
		cfg := DefaultConfig()
		cfg.Sources, cfg.Steps, cfg.Scale, cfg.Init.Steps = []Source{{Builtin: "tpcb-like", Weight: 1}}, []string{StepInit}, 2, tc.steps
		b, err := New(cfg, &fakeStore{dialect: tc.dialect})
		if err != nil {
			t.Fatal(err)
		}
		tasks, rows := b.initTasks()
		var got []measure.Op
		var loaded int64
		for _, task := range tasks {
			op, n, err := task(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, op)
			if op == opLoad {
				loaded += n
			}
		}
		if !reflect.DeepEqual(got, tc.want) || rows != 200000 || loaded != 200000 {
			t.Errorf("%s %s: ops %v, rows %d, loaded %d; want %v", tc.dialect, tc.steps, got, rows, loaded, tc.want)
		}
	}
}

func repeatOp(op measure.Op, n int) []measure.Op {
	out := make([]measure.Op, n)
	for i := range out {
		out[i] = op
	}
	return out
}

// closeCounter is a fakeStore whose connections count their closes.
type closeCounter struct {
	*fakeStore
	closed int
}

type countedConn struct {
	Conn
	s *closeCounter
}

func (c countedConn) Close() error { c.s.closed++; return nil }

func (s *closeCounter) Connect(ctx context.Context) (Conn, error) {
	c, err := s.fakeStore.Connect(ctx)
	return countedConn{c, s}, err
}

// TestConnectEach: with --connect-per-transaction no connection is opened before the run; in a
// closed loop each transaction is preceded by its own connect operation, which closes the last
// connection and opens the next (pgbench's transaction latency leaves it out: txn_begin is set
// after the connection, pgbench.c:3675-3718); in an open loop the connection is opened inside
// the transaction's operation (pgbench -R's latency, from the scheduled start, includes it). A
// retried transaction keeps its connection, as pgbench's retry goes back to its first command.
func TestConnectEach(t *testing.T) {
	text := "BEGIN;\nSELECT 1;\nEND;\n"
	for _, open := range []bool{false, true} {
		s := &closeCounter{fakeStore: &fakeStore{dialect: "postgres"}}
		tries := 0
		s.fail = func(_ int, q string) error {
			if q == "SELECT 1" && tries == 0 { // the first transaction's first try
				tries++
				return fakeErr{"serialization"}
			}
			return nil
		}
		cfg := Config{Sources: []Source{{Name: "t", Text: text, Weight: 1}}, Clients: 1, ConnectEach: true, MaxTries: 2}
		if open {
			cfg.Arrival = workload.Arrival{Process: workload.Constant, Rate: 100}
		}
		b := newBench(t, s.fakeStore, cfg)
		b.store = s
		clients, err := b.clients(context.Background())
		if err != nil || clients[0].conn != nil || len(s.sent) != 0 {
			t.Fatalf("open %v: a connection before the run (%v)", open, err)
		}
		c := clients[0]
		var ops []string
		for c.st.Transactions < 3 {
			op, _, err := c.do(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, b.ops[op].Name)
		}
		want := []string{"connect", "t", "connect", "t", "connect", "t"}
		if open {
			want = []string{"t", "t", "t"}
		}
		if !reflect.DeepEqual(ops, want) || len(s.sent) != 3 || s.closed != 2 || c.st.Connections != 3 || c.st.Retries != 1 {
			t.Errorf("open %v: ops %v, %d connections (%d closed), stats %+v", open, ops, len(s.sent), s.closed, c.st)
		}
		if got := strings.Join(s.sent[0], ";"); got != "BEGIN;SELECT 1;ROLLBACK;BEGIN;SELECT 1;END" {
			t.Errorf("open %v: the retried transaction's connection got %s", open, got)
		}
	}
}
