package crash

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serverTest runs a short crash test of a private server on the test's own ports (never the
// shared test servers') and directory under /tmp, which the server's user can reach.
func serverTest(t *testing.T, kind, kill string, settings map[string]string, layer func() Layer) File {
	t.Helper()
	bin := map[string]string{"postgres": "/usr/lib/postgresql", "mariadb-innodb": "/usr/sbin/mariadbd", "mariadb-myrocks": "/usr/lib/mysql/plugin/ha_rocksdb.so"}[kind]
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not installed (%s)", kind, bin)
	}
	if _, err := exec.LookPath("cp"); err != nil {
		t.Skip("no cp")
	}
	dir, err := os.MkdirTemp("", "dbperf-crash-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir); os.RemoveAll(dir + ".out") })
	port := map[string]int{"postgres": 15471, "mariadb-innodb": 13471, "mariadb-myrocks": 13472}[kind]
	out := dir + ".out"
	cfg := Config{Kind: kind, Settings: settings, Kill: kill, Crashes: 1, Clients: 2, Batch: 1, Seed: 11,
		MinRun: 700 * time.Millisecond, MaxRun: 1200 * time.Millisecond, Out: out, Child: []string{os.Args[0]}, Layer: layer,
		Port: port, ServerDir: dir + "/server"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	f, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Results {
		t.Log(kind, kill, settings, r.Line())
		if r.Acked == 0 {
			t.Errorf("no commit acknowledged before the crash")
		}
	}
	if len(f.Results) != 1 {
		t.Fatalf("%d results", len(f.Results))
	}
	return f
}

// A SIGKILL of every server process loses nothing under the default (durable) settings, and the
// server recovers; the settings read back from the server are recorded.
func TestServerProcessKillDurable(t *testing.T) {
	for _, kind := range []string{"postgres", "mariadb-innodb", "mariadb-myrocks"} {
		t.Run(kind, func(t *testing.T) {
			f := serverTest(t, kind, "process", nil, nil)
			if f.Promise != Durable || f.Summary.Broken || f.Summary.FailedRecoveries != 0 {
				t.Fatalf("%s: %s", f.Promise, f.Summary.Verdict)
			}
			if len(f.Settings) == 0 {
				t.Errorf("no settings read back")
			}
		})
	}
}

// Under a power cut, PostgreSQL's, InnoDB's and MyRocks' defaults lose nothing (MyRocks' takes
// about 6 s here), and fsync=off (the known-unsafe control) loses commits: the test can see a
// loss on a server.
func TestServerPowerCut(t *testing.T) {
	layer := powerLayer(t)
	t.Run("postgres-fsync-off", func(t *testing.T) {
		f := serverTest(t, "postgres", "power", map[string]string{"fsync": "off"}, layer)
		if f.Promise != Control || f.Summary.Broken {
			t.Fatalf("%s: %s", f.Promise, f.Summary.Verdict)
		}
		if f.Settings["fsync"] != "off" {
			t.Errorf("fsync read back as %q", f.Settings["fsync"])
		}
	})
	for _, kind := range []string{"postgres", "mariadb-innodb", "mariadb-myrocks"} {
		t.Run(kind, func(t *testing.T) {
			f := serverTest(t, kind, "power", nil, layer)
			if f.Promise != Durable || f.Summary.Broken {
				t.Fatalf("%s: %s", f.Promise, f.Summary.Verdict)
			}
		})
	}
}

// A setting that only matters for torn writes is refused under a power cut before anything
// starts.
func TestTornWriteSettingRefused(t *testing.T) {
	for kind, settings := range map[string]map[string]string{"postgres": {"full_page_writes": "off"}, "mariadb-innodb": {"innodb_doublewrite": "0"}} {
		out := filepath.Join(t.TempDir(), "run")
		_, err := Run(context.Background(), Config{Kind: kind, Settings: settings, Kill: "power",
			Crashes: 1, Clients: 1, Batch: 1, Out: out, Layer: func() Layer { return nil }})
		if err == nil || !strings.Contains(err.Error(), "torn") {
			t.Fatalf("%s %v: got %v", kind, settings, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s %v: the run directory was written", kind, settings)
		}
	}
}

// A server that cannot recover is a failed recovery with its data kept, and the next crash
// runs on a new server.
func TestServerFailedRecoveryStartsAgain(t *testing.T) {
	testAfterKill = func(crash int, dataDir string) {
		if crash == 1 {
			os.Remove(dataDir + "/global/pg_control") // PostgreSQL cannot start without it
		}
	}
	defer func() { testAfterKill = nil }()
	bin := "/usr/lib/postgresql"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("PostgreSQL is not installed")
	}
	dir, err := os.MkdirTemp("", "dbperf-crash-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	defer os.RemoveAll(dir)
	out := dir + "/out"
	cfg := Config{Kind: "postgres", Kill: "process", Crashes: 2, Clients: 1, Batch: 1, Seed: 1, MinRun: 500 * time.Millisecond,
		MaxRun: 500 * time.Millisecond, Out: out, Child: []string{os.Args[0]}, Port: 15473, ServerDir: dir + "/server"}
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Load(out)
	if len(f.Results) != 2 || !f.Results[0].RecoveryFailed || f.Results[1].RecoveryFailed || s.FailedRecoveries != 1 || !s.Broken {
		t.Fatalf("results %+v\nsummary %+v", f.Results, s)
	}
	if _, err := os.Stat(out + "/crash-1/server-data/PG_VERSION"); err != nil {
		t.Errorf("the failed recovery's data was not kept: %v", err)
	}
	if !strings.Contains(f.Results[0].RecoveryError, "restart") {
		t.Errorf("recovery error %q", f.Results[0].RecoveryError)
	}
}
