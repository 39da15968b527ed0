package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// redactForms are the forms in which a target string carries a secret: each case's secrets
// (every one holds "SECRET" or "CRET") must leave RedactTarget's output, which must be want.
var redactForms = []struct {
	form, in, want string
}{
	{"query password", "postgres://u@h:5432/db?password=SECRET", "postgres://u@h:5432/db?password="},
	{"query password beside other parameters", "postgresql://u@h/db?sslmode=disable&password=SECRET&application_name=x",
		"postgresql://u@h/db?sslmode=disable&password=&application_name=x"},
	{"query sslpassword", "postgres://u@h/db?sslmode=require&sslkey=/k.pem&sslcert=/c.pem&sslpassword=SECRET",
		"postgres://u@h/db?sslmode=require&sslkey=/k.pem&sslcert=/c.pem&sslpassword="},
	{"userinfo and query passwords", "postgres://u:SECRET1@h/db?password=SECRET2&sslpassword=SECRET3",
		"postgres://u@h/db?password=&sslpassword="},
	{"percent-encoded key", "postgres://u@h/db?pass%77ord=SECRET&ssl%70assword=SECRET2", "postgres://u@h/db?pass%77ord=&ssl%70assword="},
	{"key in another case", "postgres://u@h/db?PassWord=SECRET&SSLPASSWORD=SECRET2", "postgres://u@h/db?PassWord=&SSLPASSWORD="},
	{"repeated parameter", "postgres://u@h/db?password=SECRET1&x=1&password=SECRET2", "postgres://u@h/db?password=&x=1&password="},
	{"empty then repeated", "postgres://u@h/db?password=&password=SECRET", "postgres://u@h/db?password=&password="},
	{"@ in a query password", "postgres://u@h/db?password=SE@CRET", "postgres://u@h/db?password="},
	{"@ in a query password, no path", "postgres://h?password=SE@CRET", "postgres://h?password="},
	{"? in a query password", "postgres://u@h/db?password=SE?CRET&x=1", "postgres://u@h/db?password=&x=1"},
	{"= in a query password", "postgres://u@h/db?password=SE=CRET", "postgres://u@h/db?password="},
	{"? in the userinfo password", "postgres://u:SE?CRET@h/db", "postgres://u@h/db"},
	{"# in the userinfo password", "postgres://u:SE#CRET@h/db", "postgres://u@h/db"},
	{"/ in the userinfo password", "postgres://u:SE/CRET@h/db", "postgres://u@h/db"},
	{"space in the userinfo password", "postgres://u:SE CRET@h/db", "postgres://u@h/db"},
	{"userinfo read differently by pgx and net/url", "postgres://a@u:SE:CRET@h/db", "postgres://a@u@h/db"},
	{"# in a query password (pgx has no fragment)", "postgres://u@h/db?password=SE#CRET", "postgres://u@h/db?password="},
	{"password in the fragment", "postgres://u@h/db#password=SECRET", "postgres://u@h/db#password="},
	{"password after the fragment mark", "postgres://u@h/db?x=1#&password=SECRET", "postgres://u@h/db?x=1#&password="},
	{"a URL in a parameter's value", "postgres://u@h/db?x=a://b&password=SECRET", "postgres://u@h/db?x=a://b&password="},
	{"mysql query password", "mysql://u@h:3306/db?engine=rocksdb&password=SECRET", "mysql://u@h:3306/db?engine=rocksdb&password="},
	{"scheme in upper case", "POSTGRES://u@h/db?password=SECRET", "POSTGRES://u@h/db?password="},
	{"stall target", "stall+postgres://u@h/db?password=SECRET&for=1s", "stall+postgres://u@h/db?password=&for=1s"},
	{"keyword/value", "host=h user=u password=SECRET dbname=db", "host=h user=u password= dbname=db"},
	{"keyword/value quoted", "host=h password = 'SE CRET\\' x' sslpassword=SECRET2 dbname=db", "host=h password =  sslpassword= dbname=db"},
	{"go-sql-driver DSN", "u:SE@CRET@tcp(h:3306)/db?x=1", "u@tcp(h:3306)/db?x=1"},
	{"command-line argument", "--target=postgres://u@h/db?password=SECRET", "--target=postgres://u@h/db?password="},
}

func leaks(s string) bool { return strings.Contains(s, "SECRET") || strings.Contains(s, "CRET") }

func TestRedactTargetForms(t *testing.T) {
	for _, c := range redactForms {
		if got := RedactTarget(c.in); got != c.want || leaks(got) {
			t.Errorf("%s: RedactTarget(%q) = %q, want %q", c.form, c.in, got, c.want)
		}
	}
}

// In a message a URL ends at white space, or at the quote that opened it.
func TestRedactDSNForms(t *testing.T) {
	for _, c := range redactForms {
		if strings.ContainsAny(c.in, " ") || !strings.Contains(c.in, "://") || strings.HasPrefix(c.in, "-") {
			continue // a whole target string's forms (RedactTarget)
		}
		for _, q := range []string{"", `"`, "'", "`"} {
			sep := ": " // after a quote; unquoted, the URL runs to white space
			if q == "" {
				sep = " "
			}
			in := "cannot use " + q + c.in + q + sep + "refused"
			want := "cannot use " + q + c.want + q + sep + "refused"
			if got := RedactDSN(in); got != want || leaks(got) {
				t.Errorf("%s: RedactDSN(%q) = %q, want %q", c.form, in, got, want)
			}
		}
	}
}

func TestRedactDSNQuotedSpace(t *testing.T) {
	in := `parse "postgres://u@h/db?password=SE CRET": invalid`
	if got, want := RedactDSN(in), `parse "postgres://u@h/db?password=": invalid`; got != want {
		t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
	}
}

// Spec.String is the Target of run.json and of the header line `dbperf run` prints.
func TestSpecStringForms(t *testing.T) {
	withFakeKinds(t)
	Register(Kind{Name: "mysql", Usage: "mysql://...", Open: func(context.Context, Spec) (Target, error) { return nil, nil }})
	for _, c := range redactForms {
		s, err := Parse(c.in)
		if err != nil {
			if leaks(err.Error()) {
				t.Errorf("%s: Parse(%q) error %q shows the secret", c.form, c.in, err)
			}
			continue
		}
		if got := s.String(); leaks(got) {
			t.Errorf("%s: Parse(%q).String() = %q shows the secret", c.form, c.in, got)
		}
	}
}

func TestParseErrorsHideSecrets(t *testing.T) {
	withFakeKinds(t)
	for _, in := range []string{
		"stall+postgres://u:SECRET1@h/db?password=SECRET2&for=x", // not a duration
		"stall+pebble?for=1s&password=SECRET",                    // unknown stall setting
		"host=h password=SECRET",                                 // keyword/value: unknown target
		"u:SECRET@tcp(h:3306)/db",                                // go-sql-driver DSN: unknown target
		"postgres://u:SE CRET@h/db",                              // not a URL
		"redis://u@h/db?password=SECRET",                         // unknown kind
	} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q): no error", in)
		} else if leaks(err.Error()) {
			t.Errorf("Parse(%q) error %q shows the secret", in, err)
		}
	}
}

// A command line, as run.json archives it: RedactTarget of each argument.
func TestRedactArgs(t *testing.T) {
	in := []string{"dbperf", "run", "insert", "--target", "postgres://u@h/db?password=SECRET", "--target=mysql://u:SECRET@h/db", "--rows", "10"}
	var out []string
	for _, a := range in {
		out = append(out, RedactTarget(a))
	}
	got := strings.Join(out, " ")
	if want := "dbperf run insert --target postgres://u@h/db?password= --target=mysql://u@h/db --rows 10"; got != want {
		t.Errorf("RedactArgs = %q, want %q", got, want)
	}
}

// Nothing that is not a secret is removed: the paths of the TLS files and of the password file
// stay, as do settings whose names merely hold "password".
func TestRedactKeepsTheRest(t *testing.T) {
	for _, in := range []string{
		"postgres://u@h:5432/db?sslmode=verify-full&sslkey=/k.pem&sslcert=/c.pem&sslrootcert=/r.pem&passfile=/p&service=s&servicefile=/f",
		"postgres://u@h/db?password_encryption=scram-sha-256&application_name=a@b",
		"postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write",
		"postgresql://user.name@[::1]:5432/db",
		"mysql://u@h:3306/db?engine=rocksdb&socket=/run/mysqld.sock",
		"sqlite:/tmp/a@b/c", "pebble:/x", "sqlite",
		"dial postgres://h:5432 failed for user@example: password authentication failed",
	} {
		if got := RedactTarget(in); got != in && !strings.Contains(in, " ") {
			t.Errorf("RedactTarget(%q) = %q, want it unchanged", in, got)
		}
		if got := RedactDSN(in); got != in {
			t.Errorf("RedactDSN(%q) = %q, want it unchanged", in, got)
		}
	}
}

// Scrub removes the target's secrets from a driver's message wherever they are: in a URL, bare
// in the prose, or in the pieces one parser makes of a secret the other reads whole.
func TestScrubForms(t *testing.T) {
	for _, c := range []struct {
		form, dsn, msg, want string
	}{
		{"query password, bare", "postgres://u@h/db?password=SECRET", "password SECRET rejected",
			"password ******** rejected"},
		{"query sslpassword, bare", "postgres://u@h/db?sslpassword=SECRET", `cannot decrypt the key with "SECRET"`,
			`cannot decrypt the key with "********"`},
		{"query password, percent-encoded", "postgres://u@h/db?password=SE%43RET", "password SECRET rejected",
			"password ******** rejected"},
		{"query password in the message's URL", "postgres://u@h/db", "cannot parse `postgres://u@h/db?password=SECRET`: bad",
			"cannot parse `postgres://u@h/db?password=`: bad"},
		{"@ in the userinfo password: pgx's host", "postgres://u:SE@CRET@h/db", `cannot connect to postgres at CRET@h:5432: unknown host "CRET@h"`,
			`cannot connect to postgres at ********@h:5432: unknown host "********@h"`},
		{"@ in a query password, no path: pgx's host", "postgres://h?password=SE@CRET", `unknown host "CRET"`,
			`unknown host "********"`},
		{"# in a query password: net/url's piece", "postgres://u@h/db?password=SECR#ET", `password "SECR" rejected`,
			`password "********" rejected`},
	} {
		err := fmt.Errorf("%s: %w", c.msg, errAuth)
		got := Scrub(Spec{Kind: "postgres", DSN: c.dsn}, err)
		if want := c.want + ": authentication failed"; got.Error() != want {
			t.Errorf("%s: Scrub(%q) = %q, want %q", c.form, err, got, want)
		}
		if !errors.Is(got, errAuth) {
			t.Errorf("%s: Scrub loses the wrapped error", c.form)
		}
	}
}
