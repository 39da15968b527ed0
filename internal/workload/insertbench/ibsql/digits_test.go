package ibsql

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestAppendUint(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 99999, 100000, 1<<32 - 1, 1e18, 1e19 - 1, 1e19, math.MaxUint64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		vals = append(vals, r.Uint64()>>r.UintN(64))
	}
	for _, v := range vals {
		got := string(appendUint([]byte("x"), v))
		if want := "x" + strconv.FormatUint(v, 10); got != want {
			t.Fatalf("appendUint(%d) = %q, want %q", v, got, want)
		}
	}
}
