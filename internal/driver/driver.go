// Package driver names and opens the systems dbperf measures. A target is named by one string
// (sqlite, sqlite:PATH, pebble:PATH, bbolt:PATH, postgres://user@host:port/db, mysql://...);
// each kind registers itself from its driver package (sqldriver, kvdriver). Drivers know no
// workload: a workload binds its own schema and statements to an opened target (for the Insert
// Benchmark, insertbench/stores).
package driver

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// Spec is a parsed target string.
type Spec struct {
	Kind string // registered kind: sqlite, pebble, bbolt, postgres
	Path string // embedded engines: file or directory; empty means a temporary one
	DSN  string // servers: the connection URL, password included (never print it: use String)
	// Stall, if set, blocks the target's every operation during its windows (stall+KIND...).
	Stall *Stall
	// Client is how a server target's hot statements reach it (--client-path); empty is
	// ClientKernel.
	Client ClientPath
}

// ClientPath is s.Client, ClientKernel if unset.
func (s Spec) ClientPath() ClientPath {
	if s.Client == "" {
		return ClientKernel
	}
	return s.Client
}

// String is the target string without any password, safe to print and archive.
func (s Spec) String() string {
	if s.Stall != nil {
		inner := s
		inner.Stall = nil
		return StallPrefix + inner.String() + "?" + s.Stall.String()
	}
	if s.DSN != "" {
		return RedactTarget(s.DSN)
	}
	if s.Path == "" {
		return s.Kind
	}
	return s.Kind + ":" + s.Path
}

// Info describes an opened target for run.json and reports.
type Info struct {
	Kind     string         `json:"kind"`
	Target   string         `json:"target"` // the redacted target string
	Engine   string         `json:"engine"` // e.g. "PostgreSQL", "Pebble"
	Version  string         `json:"version"`
	Settings map[string]any `json:"settings,omitempty"`
}

// Target is an opened system under test.
type Target interface {
	Info(ctx context.Context) Info
	Close() error
}

// Kind is a registered target kind.
type Kind struct {
	Name    string
	Usage   string // e.g. "pebble:PATH"
	Summary string
	Open    func(ctx context.Context, s Spec) (Target, error)
}

var kinds = map[string]Kind{}

// Register makes a kind available; each driver package calls it from init.
func Register(k Kind) { kinds[k.Name] = k }

// Kinds lists the registered kinds by name.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Parse reads a target string.
func Parse(s string) (Spec, error) {
	if s == "" {
		return Spec{}, fmt.Errorf("the target is empty: give one of %s", usages())
	}
	if rest, stall, err := parseStall(s); err != nil {
		return Spec{}, Scrub(Spec{DSN: s}, err) // parseStall's messages hold s as it is
	} else if stall != nil {
		spec, err := Parse(rest)
		spec.Stall = stall
		return spec, err
	}
	if i := strings.Index(s, "://"); i > 0 && !strings.ContainsAny(s[:i], ":/") {
		scheme := s[:i]
		if scheme == "postgresql" {
			scheme = "postgres"
		}
		if _, ok := kinds[scheme]; !ok {
			return Spec{}, fmt.Errorf("unknown target kind %q in %s: give one of %s", scheme, RedactTarget(s), usages())
		}
		if _, err := url.Parse(s); err != nil {
			return Spec{}, fmt.Errorf("target %s is not a valid URL (expected %s://user:password@host:port/database)", RedactTarget(s), scheme)
		}
		return Spec{Kind: scheme, DSN: s}, nil
	}
	kind, path, _ := strings.Cut(s, ":")
	if _, ok := kinds[kind]; !ok {
		return Spec{}, fmt.Errorf("unknown target %q: give one of %s", RedactTarget(s), usages())
	}
	return Spec{Kind: kind, Path: path}, nil
}

// Open opens the target named by s.
func Open(ctx context.Context, s Spec) (Target, error) {
	k, ok := kinds[s.Kind]
	if !ok {
		return nil, fmt.Errorf("unknown target kind %q: give one of %s", s.Kind, usages())
	}
	t, err := k.Open(ctx, s)
	if err == nil && s.Stall != nil {
		if st, ok := t.(Staller); !ok || !st.Stalls() {
			t.Close()
			return nil, fmt.Errorf("target %s cannot stall: %s works with the key-value engines (e.g. %spebble?at=5s&for=2s)", s, StallPrefix, StallPrefix)
		}
	}
	if err != nil {
		return nil, Scrub(s, err)
	}
	return t, nil
}

func usages() string {
	var u []string
	for _, k := range Kinds() {
		u = append(u, k.Usage)
	}
	return strings.Join(u, ", ")
}
