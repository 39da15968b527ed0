package linkbench

import (
	"context"
	"errors"
	"fmt"
)

// maxProblems is how many problems a check lists before it only counts them.
const maxProblems = 20

type problems struct {
	list []string
	more int
}

func (p *problems) add(format string, a ...any) {
	if len(p.list) < maxProblems {
		p.list = append(p.list, fmt.Sprintf(format, a...))
	} else {
		p.more++
	}
}

func (p *problems) result() []string {
	if p.more > 0 {
		p.list = append(p.list, fmt.Sprintf("and %d more problems", p.more))
	}
	return p.list
}

// Verify implements workload.Workload. After the load it checks the whole database: count =
// visible links for every (id1, link_type), and the number of links, count rows and nodes the
// degrees give. After requests it checks every (id1, link_type) the requests wrote, and, after
// the run's last step, the whole database and the number of links and nodes the requests left.
func (b *Bench) Verify(ctx context.Context, step string) ([]string, error) {
	var p problems
	last := b.cfg.Steps[len(b.cfg.Steps)-1] == step
	switch step {
	case StepLoad:
		links, countRows := b.Expected()
		visible, rows, err := b.checkCounts(ctx, &p)
		if err != nil {
			return nil, err
		}
		if visible != links {
			p.add("linktable holds %d visible links, the degrees give %d", visible, links)
		}
		if rows != countRows {
			p.add("counttable holds %d rows, the degrees give %d", rows, countRows)
		}
		nodes, err := nodeCount(ctx, b.store)
		if err != nil {
			return nil, err
		}
		b.checkNodes(&p, nodes)
	case StepRequest:
		if err := b.checkTouched(ctx, &p); err != nil {
			return nil, err
		}
		if last {
			if _, _, err := b.checkCounts(ctx, &p); err != nil {
				return nil, err
			}
			links, nodes, _, err := graphSize(ctx, b.store)
			if err != nil {
				return nil, err
			}
			if !b.cfg.sharded() { // a shard knows only its own inserts and adds
				if links < b.links || links > b.links+b.doubtLinks {
					p.add("linktable holds %d links, the load and the requests' inserts give %d%s", links, b.links, doubt(b.doubtLinks, "more"))
				}
				b.checkNodes(&p, nodes)
			}
		}
	}
	return p.result(), nil
}

// checkNodes compares nodetable's size with the nodes the load and the requests left.
func (b *Bench) checkNodes(p *problems, nodes int64) {
	if nodes > b.nodes || nodes < b.nodes-b.doubtNodes {
		p.add("nodetable holds %d nodes, expected %d%s", nodes, b.nodes, doubt(b.doubtNodes, "fewer"))
	}
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// checkCounts compares counttable with the visible links of every (id1, link_type), merging the
// two scans (both in (id1, link_type) order), and returns the visible links and count rows.
func (b *Bench) checkCounts(ctx context.Context, p *problems) (visible, rows int64, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	counts := make(chan Count, 1024)
	scanErr := make(chan error, 1)
	go func() {
		defer close(counts)
		scanErr <- b.store.ScanCounts(ctx, func(c Count) error {
			select {
			case counts <- c:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	next, ok := <-counts
	less := func(c Count, id1, lt int64) bool { return c.ID1 < id1 || c.ID1 == id1 && c.LinkType < lt }
	// A count row without visible links must say 0.
	drain := func(id1, lt int64) {
		for ok && less(next, id1, lt) {
			rows++
			if next.Count != 0 {
				p.add("id1 %d link_type %d: count %d, visible links 0", next.ID1, next.LinkType, next.Count)
			}
			next, ok = <-counts
		}
	}
	err = b.store.ScanVisible(ctx, func(id1, lt, n int64) error {
		visible += n
		drain(id1, lt)
		if ok && next.ID1 == id1 && next.LinkType == lt {
			rows++
			if next.Count != n {
				p.add("id1 %d link_type %d: count %d, visible links %d", id1, lt, next.Count, n)
			}
			next, ok = <-counts
		} else {
			p.add("id1 %d link_type %d: no count row, visible links %d", id1, lt, n)
		}
		return nil
	})
	if err == nil {
		drain(1<<62, 0)
	}
	cancel()
	for range counts {
	}
	if serr := <-scanErr; err == nil && serr != nil && !errors.Is(serr, context.Canceled) {
		err = serr
	}
	return visible, rows, err
}

// checkTouched checks count = visible links for every (id1, link_type) the last request step
// wrote.
func (b *Bench) checkTouched(ctx context.Context, p *problems) error {
	// Each requester records at most maxTouched pairs; the whole-database check after the last
	// step covers the rest.
	var keys []pair
	for _, r := range b.requesters {
		keys = append(keys, r.stats.touched...)
	}
	keys = compactTouched(keys)
	c, err := b.store.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, k := range keys {
		n, err := c.CountLinks(ctx, k.id1, k.linkType)
		if err != nil {
			return err
		}
		v, err := c.CountVisible(ctx, k.id1, k.linkType)
		if err != nil {
			return err
		}
		if n != v {
			p.add("id1 %d link_type %d: count %d, visible links %d", k.id1, k.linkType, n, v)
		}
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// doubt says how many more or fewer rows a check allowed, for writes whose reply was lost.
func doubt(n int64, way string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (or up to %d %s: writes in doubt after a lost connection)", n, way)
}
