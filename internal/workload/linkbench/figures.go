package linkbench

import (
	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// Name is the workload's name in run.json and on the command line.
const Name = "linkbench"

// The request step's op types, in reqOp order, with the original's names in the comments
// (LinkBenchOp.java), and the load step's.
var (
	requestOps = [numReqOps]measure.OpType{
		{Name: "add_link", Unit: "operations", Abbrev: "al"},       // ADD_LINK
		{Name: "delete_link", Unit: "operations", Abbrev: "dl"},    // DELETE_LINK
		{Name: "update_link", Unit: "operations", Abbrev: "ul"},    // UPDATE_LINK
		{Name: "count_link", Unit: "operations", Abbrev: "cl"},     // COUNT_LINK
		{Name: "get_link", Unit: "operations", Abbrev: "gl"},       // MULTIGET_LINK
		{Name: "get_link_list", Unit: "operations", Abbrev: "gll"}, // GET_LINKS_LIST
		{Name: "add_node", Unit: "operations", Abbrev: "an"},       // ADD_NODE
		{Name: "update_node", Unit: "operations", Abbrev: "un"},    // UPDATE_NODE
		{Name: "delete_node", Unit: "operations", Abbrev: "dn"},    // DELETE_NODE
		{Name: "get_node", Unit: "operations", Abbrev: "gn"},       // GET_NODE
	}
	loadOps = []measure.OpType{
		{Name: "load_links", Unit: "links", Abbrev: "ll"}, // LOAD_LINKS_BULK
		{Name: "load_counts", Unit: "rows", Abbrev: "lc"}, // LOAD_COUNTS_BULK
		{Name: "load_nodes", Unit: "nodes", Abbrev: "ln"}, // LOAD_NODE_BULK
	}
)

func init() { archive.Declare(Name, Declaration()) }

// Figures implements workload.Workload: Declaration and the configured steps' insert patterns.
func (b *Bench) Figures() archive.Figures {
	f := Declaration()
	k, ok := b.store.(LinkKeyOrder)
	f.InsertPatterns = b.cfg.InsertPatterns(ok && k.LinkTypeFirst())
	return f
}

// InsertPatterns are how the configured steps insert into each table's indexes (docs/linkbench.md,
// "Insert patterns"); linkTypeFirst says linktable's primary key leads with link_type (the SQL
// schema's), not id1 (the key-value layout's).
//
// Load: each link loader fills chunks of ids in ascending id1 order, the highest chunk first,
// so the loaders at work are as many ascending streams in every index led by id1 (a store's
// link key, id1_type, counttable), and in a key led by link_type each makes one stream per link
// type. When there are no more chunks than loaders they all run at once and the highest is at
// the right end; with more, every later chunk lies below those loaded. The one node loader
// appends ids in order. Requests: add_link and update_link write links (and counts) of id1 and
// id2 drawn at random; add_node appends the ids of one counter (every requester's, every shard's).
func (c Config) InsertPatterns(linkTypeFirst bool) []archive.InsertPattern {
	chunks := newChunks(c.StartID, c.MaxID, c.ChunkIDs).count
	loaders := int64(c.Loaders * max(c.Shards, 1))
	streams, top := int(min(loaders, chunks)), chunks <= loaders
	pkStreams := streams
	if linkTypeFirst {
		pkStreams *= LinkTypes
	}
	var out []archive.InsertPattern
	for _, step := range c.Steps {
		p := func(table, index string, s archive.Streams) {
			out = append(out, archive.NewInsertPattern(step, table, index, s))
		}
		switch step {
		case StepLoad:
			p("linktable", "pk", archive.Ascending(pkStreams, top))
			p("linktable", "id1_type", archive.Ascending(streams, top))
			p("counttable", "pk", archive.Ascending(streams, top))
			p("nodetable", "pk", archive.Ascending(1, true))
		case StepRequest:
			p("linktable", "pk", archive.Random)
			p("linktable", "id1_type", archive.Random)
			p("counttable", "pk", archive.Random)
			p("nodetable", "pk", archive.Ascending(1, true))
		}
	}
	return out
}

// Declaration is what LinkBench declares to the archive and the reports: the load's three op
// types and the ten request types. The request step's headline is its total requests a second,
// all ten types together (the original's own throughput figure, and the one that compares
// across mixes: the most frequent type's rate changes with the mix); summary also shows the
// load rates and every request type's p99 (the original reports per-type percentiles, not one
// blended figure); compare adds each type's rate and p99.9.
func Declaration() archive.Figures {
	const hi, lo = archive.HigherIsBetter, archive.LowerIsBetter
	f := archive.Figures{Ops: append(append([]measure.OpType(nil), loadOps...), requestOps[:]...)}
	for _, o := range loadOps[:1] {
		f.Columns = append(f.Columns, archive.Column{Name: o.Abbrev + "ps", Op: o.Name, Stat: archive.StatPerSec, Better: hi, Summary: true, Compare: true, Headline: true,
			Help: "links loaded per second, all loaders"})
	}
	f.Columns = append(f.Columns, archive.Column{Name: "lnps", Op: loadOps[2].Name, Stat: archive.StatPerSec, Better: hi, Summary: true, Compare: true, Headline: true,
		Help: "nodes loaded per second, all loaders"})
	f.Columns = append(f.Columns, archive.Column{Name: "rps", Key: keyRequestsPerSec, Format: "%.0f", Better: hi, Summary: true, Compare: true, Headline: true,
		Help: "requests per second of the request step: all ten request types, all requesters (the original's throughput)"})
	for _, o := range requestOps {
		f.Columns = append(f.Columns, archive.Column{Name: o.Abbrev + "ps", Op: o.Name, Stat: archive.StatPerSec, Better: hi, Compare: true})
	}
	for _, o := range requestOps {
		f.Columns = append(f.Columns, archive.Column{Name: o.Abbrev + "_p99", Op: o.Name, Stat: archive.StatP99, Better: lo, Summary: true, Compare: true, Headline: true})
	}
	for _, o := range requestOps {
		f.Columns = append(f.Columns, archive.Column{Name: o.Abbrev + "_p99.9", Op: o.Name, Stat: archive.StatP999, Better: lo, Compare: true})
	}
	// What the requesters did, each shard its own: a sharded run's merge adds them up.
	f.Sums = []string{"requests", "history_queries", "multiget_asked", "multiget_found", "links_inserted", "nodes_added", "nodes_deleted"}
	return f
}

// keyRequestsPerSec is the request step's figure in summary.json's workload map: requests of
// every type / the step's seconds.
const keyRequestsPerSec = "requests_per_sec"
