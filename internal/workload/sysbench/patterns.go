package sysbench

import (
	"strconv"

	"github.com/dbperf/dbperf/internal/archive"
)

// InsertPatterns are how the configured steps insert into each sbtest table's indexes
// (docs/sysbench.md, "Insert patterns"). prepare: one loader fills each table, ids 1 to
// --table-size in order, so its pk is one stream at the right end; the k index is built after
// the load, from rows already in place, so no insert pattern is declared for it. run: oltp_insert
// takes ids from the table's SERIAL/AUTO_INCREMENT (one ascending stream, at the right end,
// whichever client inserts) or, with --auto-inc off, from sysbench's rand.unique (random); its
// k, like read_write's and write_only's delete+insert of a random id with a random k, is random.
func (c Config) InsertPatterns() []archive.InsertPattern {
	var out []archive.InsertPattern
	add := func(step, index string, s archive.Streams) {
		for t := 1; t <= c.Tables; t++ {
			out = append(out, archive.NewInsertPattern(step, "sbtest"+strconv.Itoa(t), index, s))
		}
	}
	ev := c.Event()
	for _, step := range c.Steps {
		switch {
		case step == StepPrepare && c.LoadRows() > 0:
			add(step, "pk", archive.Ascending(1, true))
		case step == StepRun && ev.Insert:
			if c.AutoInc {
				add(step, "pk", archive.Ascending(1, true))
			} else {
				add(step, "pk", archive.Random)
			}
		case step == StepRun && ev.DeleteInsert > 0:
			add(step, "pk", archive.Random)
		default:
			continue
		}
		if step == StepRun && c.CreateSecondary {
			add(step, "k", archive.Random)
		}
	}
	return out
}
