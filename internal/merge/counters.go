package merge

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// The DBMS's counters (counters.csv.gz) describe the one DBMS every shard ran against, and
// every shard's monitor sampled them: the copies differ only in when they were read. The merged
// step keeps one, the lowest-numbered shard's that has one (shard 0's unless it ran without
// counters), in the step's own directory, where `dbperf counters`, `compare --why` and the
// report read them beside the merged op totals; the other shards' stay under shard-K/.

// countersShard is the index (in shards) of the shard whose counters the merged step keeps,
// or -1 when no shard has any.
func countersShard(srcs []string) int {
	for k, src := range srcs {
		if _, err := os.Stat(stepFile(src, archive.CountersFile)); err == nil {
			return k
		}
	}
	return -1
}

// tickMap turns a shard's counter ticks into the merged step's: the tick at the end of the
// shard's row j is put at the end of merged row j+d, where the merge put that row, so that the
// counters line up exactly with the merged intervals.csv (the counters' reader matches ticks to
// rows by t_sec); the step's first tick at the end of merged row d-1 (0 when d is 0); any other
// tick moved by the shard's start on the merged step's clock.
func tickMap(s shardStep, start time.Time, ivs []*measure.Interval, w *archive.StepWriter) func(float64) float64 {
	d := rowShift(s, start)
	at := map[int64]float64{}
	for j, r := range s.files.rows {
		if m := j + d; m < len(ivs) {
			at[r.tMs] = w.TSec(ivs[m].End)
		}
	}
	if d > 0 && d <= len(ivs) {
		at[0] = w.TSec(ivs[d-1].End)
	} else if d == 0 {
		at[0] = 0
	}
	shift := s.start.Sub(start).Seconds()
	return func(t float64) float64 {
		if v, ok := at[int64(math.Round(t*1000))]; ok {
			return v
		}
		return measure.Round(t+shift, 3)
	}
}

// rowShift is the merged row a shard's first row goes to: the whole seconds between the
// merged step's start and the shard's (alignedRows).
func rowShift(s shardStep, start time.Time) int {
	return int(math.Round(s.start.Sub(start).Seconds()))
}

// writeCounters writes the counters of the shard's step directory srcDir (counters.csv.gz or
// its .partial) into the merged step directory dst as counters.csv.gz, its ticks on the merged
// step's clock (tick) and its wall clock less the shard's clock offset. A file cut short (a
// shard killed in the step) gives the rows read before the cut.
func writeCounters(srcDir, dst string, tick func(float64) float64, offset time.Duration) (err error) {
	src := stepFile(srcDir, archive.CountersFile)
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	gz, err := gzip.NewReader(bufio.NewReader(in))
	if err != nil {
		return err
	}
	r := csv.NewReader(gz)
	r.FieldsPerRecord = 4
	out, err := os.CreateTemp(dst, "."+archive.CountersFile+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(out.Name())
		}
	}()
	bw := bufio.NewWriter(out)
	zw := gzip.NewWriter(bw)
	cw := csv.NewWriter(zw)
	for line := 0; ; line++ {
		rec, rerr := r.Read()
		if rerr != nil {
			if rerr != io.EOF && line == 0 {
				return rerr
			}
			break
		}
		if line > 0 {
			t, perr := strconv.ParseFloat(rec[0], 64)
			if perr != nil {
				return errors.New(src + ": t_sec " + rec[0] + " is not a number")
			}
			rec[0] = strconv.FormatFloat(tick(t), 'f', 3, 64)
			if ms, perr := strconv.ParseInt(rec[2], 10, 64); rec[1] == "" && perr == nil {
				rec[2] = strconv.FormatInt(ms-offset.Milliseconds(), 10)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	err = errors.Join(cw.Error(), zw.Close(), bw.Flush(), out.Chmod(0o644), out.Sync(), out.Close())
	if err != nil {
		return err
	}
	return os.Rename(out.Name(), filepath.Join(dst, archive.CountersFile))
}
