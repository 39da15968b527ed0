package driver

import (
	"strings"
	"testing"
	"time"
)

func TestParseStallTarget(t *testing.T) {
	Register(Kind{Name: "kvtest", Usage: "kvtest[:PATH]"})
	spec, err := Parse("stall+kvtest:/tmp/x?at=5s&for=2s&every=10s")
	if err != nil || spec.Kind != "kvtest" || spec.Path != "/tmp/x" || spec.Stall == nil ||
		spec.Stall.At != 5*time.Second || spec.Stall.For != 2*time.Second || spec.Stall.Every != 10*time.Second {
		t.Fatalf("Parse = %+v, %v", spec, err)
	}
	if got := spec.String(); got != "stall+kvtest:/tmp/x?at=5s&for=2s&every=10s" {
		t.Errorf("String() = %q", got)
	}
	for in, want := range map[string]string{
		"stall+kvtest?at=1s":                "a stall needs for=DURATION",
		"stall+kvtest?at=x&for=1s":          "at=x is not a duration",
		"stall+kvtest?for=1s&when=2s":       `unknown stall setting "when"`,
		"stall+kvtest?for=2s&every=1s":      "every=1s must be longer than for=2s",
		"stall+nothing?for=1s":              "unknown target",
		"stall+kvtest?at=1s&for=-1s&every=": "for=-1s is not a duration",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error %v, want %q", in, err, want)
		}
	}
}

func TestStallWindows(t *testing.T) {
	t0 := time.Unix(1000, 0)
	st := &Stall{At: 5 * time.Second, For: 2 * time.Second, Every: 10 * time.Second}
	st.Start(t0)
	for _, c := range []struct {
		at   time.Duration // after opening
		ends time.Duration // when the window holding it ends, 0 for none
	}{
		{0, 0}, {4999 * time.Millisecond, 0}, {5 * time.Second, 7 * time.Second}, {6500 * time.Millisecond, 7 * time.Second},
		{7 * time.Second, 0}, {15 * time.Second, 17 * time.Second}, {16 * time.Second, 17 * time.Second}, {17 * time.Second, 0},
	} {
		got := st.Until(t0.Add(c.at))
		if (c.ends == 0) != got.IsZero() || (c.ends != 0 && !got.Equal(t0.Add(c.ends))) {
			t.Errorf("at %v: window ends %v, want %v", c.at, got, c.ends)
		}
	}
	once := &Stall{At: time.Second, For: time.Second}
	once.Start(t0)
	if !once.Until(t0.Add(11 * time.Second)).IsZero() {
		t.Error("a stall without every stalls again")
	}
}
