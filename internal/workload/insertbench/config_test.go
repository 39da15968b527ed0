package insertbench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const stepList = "l.i0,l.x,l.i1,l.i2,settle,qr100,qp100,qr500,qp500,qr1000,qp1000"

func TestParseStepAllSteps(t *testing.T) {
	want := map[string]stepInfo{
		"l.i0":   {kind: kindLoad, batch: 100},
		"l.x":    {kind: kindIndex},
		"l.i1":   {kind: kindInsertDelete, batch: 50},
		"l.i2":   {kind: kindInsertDelete, batch: 5},
		"settle": {kind: kindSettle},
		"qr100":  {kind: kindQuery, batch: 50, rate: 100},
		"qp100":  {kind: kindQuery, batch: 50, rate: 100, pointOnly: true},
		"qr500":  {kind: kindQuery, batch: 50, rate: 500},
		"qp500":  {kind: kindQuery, batch: 50, rate: 500, pointOnly: true},
		"qr1000": {kind: kindQuery, batch: 50, rate: 1000},
		"qp1000": {kind: kindQuery, batch: 50, rate: 1000, pointOnly: true},
	}
	if got := strings.Join(AllSteps, ","); got != stepList {
		t.Fatalf("AllSteps = %s, want %s", got, stepList)
	}
	for _, s := range AllSteps {
		got, err := parseStep(s)
		if err != nil {
			t.Errorf("parseStep(%q): %v", s, err)
			continue
		}
		if got != want[s] {
			t.Errorf("parseStep(%q) = %+v, want %+v", s, got, want[s])
		}
	}
}

func TestParseStepAnyRate(t *testing.T) {
	for _, c := range []struct {
		name  string
		rate  float64
		point bool
	}{{"qr2000", 2000, false}, {"qp1", 1, true}, {"qr123456", 123456, false}, {"qp2000", 2000, true}} {
		got, err := parseStep(c.name)
		if err != nil {
			t.Fatalf("parseStep(%q): %v", c.name, err)
		}
		if got.kind != kindQuery || got.rate != c.rate || got.pointOnly != c.point || got.batch != 50 {
			t.Errorf("parseStep(%q) = %+v, want a query step at rate %g (point %v)", c.name, got, c.rate, c.point)
		}
	}
}

func TestParseStepErrors(t *testing.T) {
	for _, name := range []string{"qx100", "qr0", "qp0", "qr-5", "l.i9", "", "qr", "qp", "q", "QR100", "qr10x", "qr1.5", "settle ", "l.x2", "xqr100", "qr05", "qr+5"} {
		_, err := parseStep(name)
		if err == nil {
			t.Errorf("parseStep(%q): no error", name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, stepList) {
			t.Errorf("parseStep(%q) error %q does not list the steps", name, msg)
		}
		if !strings.Contains(msg, "unknown step") || !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("parseStep(%q) error %q does not name the step", name, msg)
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
	if c.Clients != 2 || c.Rows != 10000 || c.L1Rows != 5000 || c.QSeconds != 3 || c.Retries != 3 ||
		c.Data != (DataSpec{Min: 10, Max: 20, RandomPct: 50}) || !slices.Equal(c.Steps, AllSteps) || c.SharedTable {
		t.Fatalf("DefaultConfig() = %+v", c)
	}
	// A shared table with the defaults is valid too.
	c.SharedTable = true
	if err := c.Validate(); err != nil {
		t.Fatalf("shared table with the defaults: %v", err)
	}
}

func TestValidateCollectsEveryProblem(t *testing.T) {
	c := Config{
		Clients:  0,
		Rows:     0,
		L1Rows:   -1,
		QSeconds: 0,
		Data:     DataSpec{Min: 5, Max: 4, RandomPct: 101},
		Steps:    []string{"l.i0", "bogus", "l.x", "l.i0", "qr0"},
		Retries:  -1,
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate of a bad config: no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		"--clients must be at least 1 (got 0)",
		"--rows must be at least 1 (got 0)",
		"--l1-rows must not be negative (got -1)",
		"--q-seconds must be positive (got 0)",
		"--data-min/--data-max must satisfy 0 <= min <= max <= 4000 (got 5..4)",
		"--data-random-pct must be in 0..100 (got 101)",
		`unknown step "bogus"`,
		`step "l.i0" is listed twice in --steps`,
		`unknown step "qr0"`,
		"--retries must not be negative (got -1)",
	}
	if len(lines) != len(want) {
		t.Fatalf("Validate gave %d lines, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want it to contain %q", i+1, lines[i], w)
		}
	}
}

func TestValidateSingleProblems(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*Config)
		want   string // "" means valid
	}{
		{"data max 4000", func(c *Config) { c.Data = DataSpec{Min: 0, Max: 4000, RandomPct: 100} }, ""},
		{"data max 4001", func(c *Config) { c.Data.Max = 4001 }, "--data-min/--data-max"},
		{"data min negative", func(c *Config) { c.Data.Min = -1 }, "--data-min/--data-max"},
		{"data empty", func(c *Config) { c.Data = DataSpec{Min: 0, Max: 0} }, ""},
		{"pct negative", func(c *Config) { c.Data.RandomPct = -1 }, "--data-random-pct"},
		{"no steps", func(c *Config) { c.Steps = nil }, "--steps is empty"},
		{"one step", func(c *Config) { c.Steps = []string{"qp2000"} }, ""},
		{"duplicate step", func(c *Config) { c.Steps = []string{"l.i0", "l.x", "l.x"} }, `step "l.x" is listed twice`},
		{"duplicate query step", func(c *Config) { c.Steps = []string{"qr2000", "qr2000"} }, `step "qr2000" is listed twice`},
		{"zero l1 rows", func(c *Config) { c.L1Rows = 0 }, ""},
		{"zero retries", func(c *Config) { c.Retries = 0 }, ""},
		{"negative q seconds", func(c *Config) { c.QSeconds = -1 }, "--q-seconds"},
		{"shared table too small", func(c *Config) { c.SharedTable, c.Rows, c.Clients = true, 199, 4 }, "--rows must be at least 200 with a shared table and 4 clients"},
		{"shared table just big enough", func(c *Config) { c.SharedTable, c.Rows, c.Clients = true, 200, 4 }, ""},
		{"small per-client tables", func(c *Config) { c.Rows = 1 }, ""},
	} {
		cfg := DefaultConfig()
		c.change(&cfg)
		err := cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Validate = %v, want valid", c.name, err)
		case c.want != "" && err == nil:
			t.Errorf("%s: Validate = nil, want %q", c.name, c.want)
		case c.want != "" && (!strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: Validate = %q, want exactly one problem containing %q", c.name, err, c.want)
		}
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	c := DefaultConfig()
	c.Clients = 0
	if _, err := New(c, nil); err == nil || !strings.Contains(err.Error(), "--clients") {
		t.Fatalf("New with 0 clients: %v", err)
	}
	c = DefaultConfig()
	c.Clients = 3
	b, err := New(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.tableNames(); !slices.Equal(got, []string{"pi1", "pi2", "pi3"}) {
		t.Fatalf("tables = %v, want pi1 pi2 pi3", got)
	}
	c.SharedTable = true
	b, err = New(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.tableNames(); !slices.Equal(got, []string{"pi1"}) || b.tables[0].producers != 3 {
		t.Fatalf("shared: tables = %v, producers %d", got, b.tables[0].producers)
	}
}

// The settle's length is the reference's rule (iq.sh:48-49): 60 s + 1 s per million rows loaded
// in all, at most 1200 s, scaled only by SettleScale, or --settle-wait instead.
func TestSettleRule(t *testing.T) {
	for rows, want := range map[int64]time.Duration{0: 60 * time.Second, 20_000: 60 * time.Second, 16_000_000: 76 * time.Second,
		800_000_000: 860 * time.Second, 5_000_000_000: 1200 * time.Second} {
		if got := SettleRule(rows); got != want {
			t.Errorf("SettleRule(%d) = %s, want %s", rows, got, want)
		}
	}
	c := DefaultConfig()
	c.Clients, c.Rows = 8, 20_000_000 // 160M rows: 220 s
	if got := c.settleWait(); got != 220*time.Second {
		t.Errorf("settleWait = %s, want 220s", got)
	}
	c.SettleScale = 0.01
	if got := c.settleWait(); got != 2200*time.Millisecond {
		t.Errorf("settleWait scaled by 0.01 = %s, want 2.2s", got)
	}
	c.SettleWait = 5 * time.Second
	if got := c.settleWait(); got != 5*time.Second {
		t.Errorf("settleWait with --settle-wait 5s = %s", got)
	}
	c.SettleScale = 2
	if c.Validate() == nil {
		t.Errorf("--settle-scale 2 accepted")
	}
}
