package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assertNoSecret fails if a secret is in the output or in any file under dir (if not "").
func assertNoSecret(t *testing.T, r result, dir string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(r.stdout, s) {
			t.Errorf("%q is on stdout:\n%s", s, r.stdout)
		}
		if strings.Contains(r.stderr, s) {
			t.Errorf("%q is on stderr:\n%s", s, r.stderr)
		}
	}
	if dir == "" {
		return
	}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q", p, s)
			}
		}
		return nil
	})
}

// TestSecretsNeverShown runs `dbperf run` on targets that carry secrets in every form the
// drivers accept (and the forms dbperf rejects but echoes) against a closed port: none of the
// secrets is on stdout, stderr or in a file the command leaves behind.
func TestSecretsNeverShown(t *testing.T) {
	for _, c := range []struct {
		form   string
		target string
	}{
		{"password and sslpassword parameters", "postgres://u:SECRET0@127.0.0.1:1/db?password=SECRET1&sslpassword=SECRET2"},
		{"percent-encoded key, other case", "postgresql://u@127.0.0.1:1/db?pass%77ord=SECRET3&SSLPASSWORD=SECRET4"},
		{"# in a parameter password", "postgres://u@127.0.0.1:1/db?password=SECRET5#SECRET6"},
		{"@ in a parameter password, no path", "postgres://h?password=SECRET7@127.0.0.1:1"},
		{"space in the userinfo password", "postgres://u:SECRET8 SECRET9@127.0.0.1:1/db"},
		{"MySQL, password parameter", "mysql://u:SECRET10@127.0.0.1:1/db?password=SECRET11"},
		{"stall target", "stall+postgres://u:SECRET12@127.0.0.1:1/db?password=SECRET13&for=x"},
		{"keyword/value", "host=127.0.0.1 port=1 password=SECRET14 sslpassword='SECRET15 x'"},
		{"go-sql-driver DSN", "u:SECRET16@tcp(127.0.0.1:1)/db"},
	} {
		t.Run(c.form, func(t *testing.T) {
			dir := t.TempDir()
			r := run(t, dir, "run", "insert", "--target", c.target, "--steps", "l.i0", "--rows", "10", "--out", "runs/x")
			if r.code == 0 {
				t.Fatalf("exit 0 against a closed port; stdout:\n%s", r.stdout)
			}
			assertNoSecret(t, r, dir, "SECRET")
		})
	}

	// A plan names each run after its target's engine= parameter; one inside a password is not
	// the engine, and the run's name (printed, and its directory) does not show it.
	t.Run("plan", func(t *testing.T) {
		dir := t.TempDir()
		plan := `{"runs": [{"target": "postgres://u@127.0.0.1:1/db?password=xengine=SECRET17"},
			{"target": "mysql://u:xengine=SECRET18@127.0.0.1:1/db"}]}`
		if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(t, dir, "run", "insert", "--plan", "plan.json", "--steps", "l.i0", "--rows", "10", "--out", "runs/x")
		if r.code == 0 {
			t.Fatalf("exit 0 against a closed port; stdout:\n%s", r.stdout)
		}
		assertNoSecret(t, r, filepath.Join(dir, "runs"), "SECRET")
	})
}

// TestSecretsNeverArchived runs against PostgreSQL with the password as a URL parameter (and an
// sslpassword) and checks the output, every file of the run directory, and what report,
// compare and summary print of it.
func TestSecretsNeverArchived(t *testing.T) {
	u, err := url.Parse(testPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	password, ok := u.User.Password()
	if !ok || password == "" {
		t.Fatalf("DBPERF_TEST_POSTGRES %q has no password", u.Redacted())
	}
	u.User = url.User(u.User.Username())
	u.Path = "/dbperf_secrets"
	u.RawQuery = "password=" + url.QueryEscape(password) + "&sslpassword=SECRET2"
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--target", u.String(), "--rows", "100", "--steps", "l.i0", "--out", "runs/pg")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertNoSecret(t, r, dir, password, "SECRET2")

	// The target in run.json keeps its parameters, their secrets' values removed.
	var meta struct {
		Command []string
		Target  struct{ Target string }
	}
	b, _ := os.ReadFile(filepath.Join(dir, "runs/pg/run.json"))
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if want := "/dbperf_secrets?password=&sslpassword="; !strings.HasSuffix(meta.Target.Target, want) {
		t.Errorf("run.json's target %q does not end with %q", meta.Target.Target, want)
	}
	if !strings.Contains(strings.Join(meta.Command, " "), "--target "+meta.Target.Target+" ") {
		t.Errorf("run.json's command %q lacks the redacted target %q", meta.Command, meta.Target.Target)
	}
	// The header line wraps at 100 columns: the target ends its first line.
	if !strings.Contains(r.stdout, " on "+meta.Target.Target+"\n") && !strings.Contains(r.stdout, " on "+meta.Target.Target+" (") {
		t.Errorf("the header line does not name the redacted target %q:\n%s", meta.Target.Target, r.stdout)
	}

	if err := os.CopyFS(filepath.Join(dir, "runs/pg2"), os.DirFS(filepath.Join(dir, "runs/pg"))); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", "runs/pg", "runs/pg2", "-o", "report.html"},
		{"compare", "--base", "runs/pg", "runs/pg2"},
		{"summary", "runs/pg", "runs/pg2"},
	} {
		r := run(t, dir, args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], r.code, r.stderr)
		}
		assertNoSecret(t, r, "", password, "SECRET2")
	}
	b, _ = os.ReadFile(filepath.Join(dir, "report.html"))
	if len(b) == 0 || strings.Contains(string(b), password) || strings.Contains(string(b), "SECRET2") {
		t.Errorf("report.html is empty or holds a secret")
	}
}
