package kv

import (
	"strings"
	"testing"
)

// TestValidate: every bad flag is named in one error, with what to give instead.
func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("the default config is invalid: %v", err)
	}
	c := DefaultConfig()
	c.Keys, c.KeySize, c.CompressionRatio, c.Distribution, c.Setup, c.Steps = 0, 4, 0, "pareto", "fast", []string{"readseq"}
	err := c.Validate()
	if err == nil {
		t.Fatal("a bad config validated")
	}
	for _, want := range []string{"--keys", "--key-size", "--compression-ratio", "--distribution", "--setup", `unknown step "readseq"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestEngineOptions: fillseq writes without the WAL; the setups size the cache from the data.
func TestEngineOptions(t *testing.T) {
	c := DefaultConfig()
	c.Keys = 1 << 20 // 420 MiB of raw data
	if o := c.EngineOptions(FillSeq); !o.DisableWAL {
		t.Error("fillseq keeps the WAL")
	}
	if o := c.EngineOptions(ReadRandom); o.DisableWAL || o.CacheBytes != 2*c.dataBytes() || o.Compression != "none" {
		t.Errorf("byrx readrandom options %+v", o)
	}
	c.Setup = "iodir"
	if o := c.EngineOptions(ReadRandom); o.CacheBytes != c.dataBytes()/16 || !o.DirectIO || o.Compression != "lz4" {
		t.Errorf("iodir options %+v", o)
	}
}
