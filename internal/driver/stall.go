package driver

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Stall makes a target block every operation during chosen windows: from At after the target
// opens, for For, again every Every (0: once). It exists to teach and to test what a benchmark
// client does with a stall: an open-loop client counts the wait in the response time of every
// operation that arrived during it; a closed-loop client stops sending and hides it
// (coordinated omission). Named as stall+KIND[:PATH]?at=5s&for=2s[&every=10s].
type Stall struct {
	At, For, Every time.Duration
	opened         time.Time
}

// StallPrefix starts a target string whose target stalls.
const StallPrefix = "stall+"

// parseStall splits "stall+KIND...?at=..&for=.." into the target string and its stall.
func parseStall(s string) (string, *Stall, error) {
	rest, ok := strings.CutPrefix(s, StallPrefix)
	if !ok {
		return s, nil, nil
	}
	target, query, _ := strings.Cut(rest, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", nil, fmt.Errorf("target %s: %v", s, err)
	}
	st := &Stall{}
	for key, d := range map[string]*time.Duration{"at": &st.At, "for": &st.For, "every": &st.Every} {
		v := q.Get(key)
		if v == "" {
			continue
		}
		if *d, err = time.ParseDuration(v); err != nil || *d < 0 {
			return "", nil, fmt.Errorf("target %s: %s=%s is not a duration (e.g. at=5s&for=2s&every=10s)", s, key, v)
		}
		q.Del(key)
	}
	for key := range q {
		return "", nil, fmt.Errorf("target %s: unknown stall setting %q (the settings are at, for and every)", s, key)
	}
	if st.For <= 0 {
		return "", nil, fmt.Errorf("target %s: a stall needs for=DURATION, e.g. %sKIND?at=5s&for=2s", s, StallPrefix)
	}
	if st.Every > 0 && st.Every <= st.For {
		return "", nil, fmt.Errorf("target %s: every=%s must be longer than for=%s", s, st.Every, st.For)
	}
	return target, st, nil
}

// Start marks the instant the target opened, from which At counts.
func (st *Stall) Start(now time.Time) { st.opened = now }

// Until returns when the stall window holding now ends, or the zero time when now is in none.
func (st *Stall) Until(now time.Time) time.Time {
	since := now.Sub(st.opened) - st.At
	if since < 0 {
		return time.Time{}
	}
	if st.Every > 0 {
		since %= st.Every
	}
	if since >= st.For {
		return time.Time{}
	}
	return now.Add(st.For - since)
}

// Wait blocks while now is in a stall window.
func (st *Stall) Wait() {
	if end := st.Until(time.Now()); !end.IsZero() {
		time.Sleep(time.Until(end))
	}
}

// String is the stall's part of a target string.
func (st *Stall) String() string {
	s := fmt.Sprintf("at=%s&for=%s", st.At, st.For)
	if st.Every > 0 {
		s += fmt.Sprintf("&every=%s", st.Every)
	}
	return s
}

// Staller is what a target that honours a stall implements.
type Staller interface {
	Stalls() bool
}
