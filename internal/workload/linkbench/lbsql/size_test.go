package lbsql

import (
	"context"
	"testing"

	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// TestSizeMatchesScans: on every SQL target the graph's size from the DBMS's own counts is what
// the full scans count: links, nodes and the highest node id.
func TestSizeMatchesScans(t *testing.T) {
	for name, target := range sqlTargets(t, "lbsql_size", "size") {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, target)
			c, err := st.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var links []lb.Link
			for id1 := int64(1); id1 <= 3; id1++ {
				for id2 := int64(1); id2 <= id1*2; id2++ {
					links = append(links, lb.Link{ID1: id1, ID2: id2, LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault,
						Data: []byte("d"), Time: 1, Version: 1})
				}
			}
			nodes := []lb.Node{{ID: 7, Type: lb.NodeType, Version: 1, Time: 1, Data: []byte("n")},
				{ID: 41, Type: lb.NodeType, Version: 1, Time: 1, Data: []byte("n")}}
			if err := c.LoadLinks(ctx, links); err != nil {
				t.Fatal(err)
			}
			if err := c.LoadNodes(ctx, nodes); err != nil {
				t.Fatal(err)
			}
			gotLinks, gotNodes, maxNode, err := st.Size(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var scanned int64
			if err := st.ScanLinks(ctx, func(lb.Link) error { scanned++; return nil }); err != nil {
				t.Fatal(err)
			}
			if gotLinks != 12 || scanned != 12 || gotNodes != 2 || maxNode != 41 {
				t.Errorf("Size = %d links, %d nodes, max node %d; the scan counts %d links; want 12, 2, 41, 12",
					gotLinks, gotNodes, maxNode, scanned)
			}
		})
	}
}
