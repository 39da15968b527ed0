package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// This package's test binary links no driver package, so no kind is registered by init: the
// tests register fakes, and put the registry back as it was afterwards.
func withFakeKinds(t *testing.T) {
	t.Helper()
	saved := kinds
	kinds = map[string]Kind{}
	t.Cleanup(func() { kinds = saved })
	open := func(_ context.Context, s Spec) (Target, error) { return fakeTarget{s}, nil }
	Register(Kind{Name: "sqlite", Usage: "sqlite[:FILE]", Open: open})
	Register(Kind{Name: "pebble", Usage: "pebble[:DIR]", Open: open})
	Register(Kind{Name: "postgres", Usage: "postgres://USER:PASSWORD@HOST:PORT/DB", Open: open})
}

type fakeTarget struct{ s Spec }

func (f fakeTarget) Info(context.Context) Info { return Info{Kind: f.s.Kind, Target: f.s.String()} }
func (f fakeTarget) Close() error              { return nil }

const allUsages = "pebble[:DIR], postgres://USER:PASSWORD@HOST:PORT/DB, sqlite[:FILE]"

func TestKindsSorted(t *testing.T) {
	withFakeKinds(t)
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Name)
	}
	if got := strings.Join(names, ","); got != "pebble,postgres,sqlite" {
		t.Fatalf("Kinds() = %s, want pebble,postgres,sqlite", got)
	}
	if got := usages(); got != allUsages {
		t.Fatalf("usages() = %q, want %q", got, allUsages)
	}
}

func TestParse(t *testing.T) {
	withFakeKinds(t)
	for _, c := range []struct {
		in     string
		want   Spec
		string string
	}{
		{"sqlite", Spec{Kind: "sqlite"}, "sqlite"},
		{"sqlite:/x/y", Spec{Kind: "sqlite", Path: "/x/y"}, "sqlite:/x/y"},
		{"sqlite:rel/a:b", Spec{Kind: "sqlite", Path: "rel/a:b"}, "sqlite:rel/a:b"},
		{"pebble:/d", Spec{Kind: "pebble", Path: "/d"}, "pebble:/d"},
		{"pebble", Spec{Kind: "pebble"}, "pebble"},
		{"postgres://u:secret@h:5432/db", Spec{Kind: "postgres", DSN: "postgres://u:secret@h:5432/db"}, "postgres://u@h:5432/db"},
		{"postgresql://u:secret@h:5432/db?sslmode=disable", Spec{Kind: "postgres", DSN: "postgresql://u:secret@h:5432/db?sslmode=disable"}, "postgresql://u@h:5432/db?sslmode=disable"},
		{"postgres://u@h/db", Spec{Kind: "postgres", DSN: "postgres://u@h/db"}, "postgres://u@h/db"},
		{"postgres://h/db", Spec{Kind: "postgres", DSN: "postgres://h/db"}, "postgres://h/db"},
		{"sqlite:/a://b", Spec{Kind: "sqlite", Path: "/a://b"}, "sqlite:/a://b"},
	} {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
		if s := got.String(); s != c.string {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, s, c.string)
		}
		if strings.Contains(got.String(), "secret") {
			t.Errorf("Parse(%q).String() = %q shows the password", c.in, got.String())
		}
	}
}

func TestParseErrorsListUsages(t *testing.T) {
	withFakeKinds(t)
	for _, c := range []struct {
		in   string
		want string // part of the message besides the usages
	}{
		{"", "empty"},
		{"mysql", `"mysql"`},
		{"bbolt:/f.db", `"bbolt:/f.db"`},
		{":/x", `":/x"`},
		{"SQLITE", `"SQLITE"`},
		{"mysql://a:hunter2@c/d", `"mysql"`},
		{"redis://h", `"redis"`},
	} {
		_, err := Parse(c.in)
		if err == nil {
			t.Errorf("Parse(%q): no error", c.in)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, allUsages) {
			t.Errorf("Parse(%q) error %q does not list the usages %q", c.in, msg, allUsages)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("Parse(%q) error %q does not contain %s", c.in, msg, c.want)
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("Parse(%q) error %q shows the password", c.in, msg)
		}
	}
}

func TestParseInvalidURLHidesPassword(t *testing.T) {
	withFakeKinds(t)
	_, err := Parse("postgres://u:hunter2@h:notaport/db")
	if err == nil {
		t.Fatal("Parse of a URL with a bad port: no error")
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "postgres://u@h:notaport/db") {
		t.Fatalf("error %q: want the redacted URL and no password", msg)
	}
}

func TestSpecStringNeverShowsPassword(t *testing.T) {
	for _, s := range []Spec{
		{Kind: "postgres", DSN: "postgres://u:secret@h:5432/db"},
		{Kind: "postgres", DSN: "postgresql://user.name:secret@[::1]:5432/db"},
		{Kind: "postgres", DSN: "postgres://:secret@h/db"},
		{Kind: "postgres", DSN: "postgres://u:se:cret@h/db"},
		{Kind: "postgres", DSN: "postgres://u:secret@h/db?application_name=x"},
	} {
		if got := s.String(); strings.Contains(got, "secret") || strings.Contains(got, "cret") {
			t.Errorf("Spec{DSN: %q}.String() = %q shows the password", s.DSN, got)
		}
	}
}

func TestRedactDSN(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x postgres://u:p@h/db y mysql://a:b@c/d", "x postgres://u@h/db y mysql://a@c/d"},
		{"postgres://u:secret@h:5432/db", "postgres://u@h:5432/db"},
		{`dial "postgres://u:s3cr%40t@h/db": refused`, `dial "postgres://u@h/db": refused`},
		{"postgres://u@h/db", "postgres://u@h/db"},
		// A password with '@' in it: URL parsers split at the last '@' before the path.
		{"postgres://u:p@ss@h/db", "postgres://u@h/db"},
		{"postgres://u:p@s@s@h:5432/db?x=1 and more", "postgres://u@h:5432/db?x=1 and more"},
		{"no url here: a:b@c", "no url here: a:b@c"},
		// A URL without a password is left alone, even with an '@' later in the message.
		{"dial postgres://h:5432/db failed for user@example", "dial postgres://h:5432/db failed for user@example"},
		{"", ""},
	} {
		if got := RedactDSN(c.in); got != c.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

var errAuth = errors.New("authentication failed")

func TestScrub(t *testing.T) {
	s := Spec{Kind: "postgres", DSN: "postgres://u:hunter2@h:5432/db"}

	// The password alone in a driver message.
	err := fmt.Errorf("password hunter2 rejected for u: %w", errAuth)
	got := Scrub(s, err)
	if want := "password ******** rejected for u: authentication failed"; got.Error() != want {
		t.Errorf("Scrub = %q, want %q", got.Error(), want)
	}
	if !errors.Is(got, errAuth) {
		t.Error("errors.Is(Scrub(err), errAuth) = false: the wrapped error is lost")
	}
	if errors.Unwrap(got) != err {
		t.Error("Unwrap(Scrub(err)) is not the original error")
	}

	// The whole DSN in a message, twice.
	err = fmt.Errorf("connect postgres://u:hunter2@h:5432/db (again postgres://u:hunter2@h:5432/db): %w", errAuth)
	got = Scrub(s, err)
	if want := "connect postgres://u@h:5432/db (again postgres://u@h:5432/db): authentication failed"; got.Error() != want {
		t.Errorf("Scrub = %q, want %q", got.Error(), want)
	}
	if !errors.Is(got, errAuth) {
		t.Error("errors.Is through Scrub of a DSN message = false")
	}

	// Nothing to scrub: the error itself comes back.
	err = fmt.Errorf("no route to host: %w", errAuth)
	if got := Scrub(s, err); got != err {
		t.Errorf("Scrub of a clean error = %v (%T), want the same error", got, got)
	}
	if Scrub(s, nil) != nil {
		t.Error("Scrub(nil) != nil")
	}
	// Embedded targets have no password.
	if got := Scrub(Spec{Kind: "sqlite", Path: "/x"}, err); got != err {
		t.Errorf("Scrub without a DSN = %v, want the same error", got)
	}
	// No password in the DSN: a message is only redacted of other URLs' passwords.
	noPw := Spec{Kind: "postgres", DSN: "postgres://u@h/db"}
	err = errors.New("via mysql://a:b@c/d")
	if got := Scrub(noPw, err); got.Error() != "via mysql://a@c/d" {
		t.Errorf("Scrub = %q", got.Error())
	}
}

func TestOpen(t *testing.T) {
	withFakeKinds(t)
	sentinel := errors.New("boom")
	Register(Kind{Name: "failing", Usage: "failing://USER:PASSWORD@HOST/DB", Open: func(_ context.Context, s Spec) (Target, error) {
		return nil, fmt.Errorf("cannot connect to %s with password hunter2: %w", s.DSN, sentinel)
	}})

	s, err := Parse("failing://u:hunter2@h/db")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), s)
	if err == nil {
		t.Fatal("Open: no error from a failing kind")
	}
	if want := "cannot connect to failing://u@h/db with password ********: boom"; err.Error() != want {
		t.Errorf("Open error = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, sentinel) {
		t.Error("errors.Is(Open error, sentinel) = false")
	}

	_, err = Open(context.Background(), Spec{Kind: "nosuch"})
	if err == nil || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "failing://USER:PASSWORD@HOST/DB, pebble[:DIR]") {
		t.Errorf("Open of an unknown kind: %v", err)
	}

	s, err = Parse("pebble:/d")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if info := tg.Info(context.Background()); info.Kind != "pebble" || info.Target != "pebble:/d" {
		t.Errorf("Info = %+v", info)
	}
}
