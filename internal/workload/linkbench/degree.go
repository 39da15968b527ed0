package linkbench

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The distribution files the original ships (see data/README.md).
var (
	//go:embed data/distribution-2013.dat
	distribution2013 []byte
	//go:embed data/distribution-2017.dat
	distribution2017 []byte
)

// cdfPoint is one `value cumulative_percent` line of a distribution file, as a fraction.
type cdfPoint struct {
	value int64
	prob  float64
}

// readSection reads one section of a distribution file (RealDistribution.java:223-243,299-355).
func readSection(data []byte, name string) ([]cdfPoint, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	var pts []cdfPoint
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		v, p, ok := strings.Cut(line, " ")
		if !ok {
			if in {
				break // the next section
			}
			in = line == name
			continue
		}
		if !in {
			continue
		}
		value, err1 := strconv.ParseInt(v, 10, 64)
		pct, err2 := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("distribution section %s: bad line %q", name, line)
		}
		pts = append(pts, cdfPoint{value, pct / 100})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("distribution has no section %s", name)
	}
	return pts, nil
}

// Degrees gives each id1 its total out-degree: the original's nlinks_func = real
// (ID2Chooser.java:211-224, PiecewiseLinearDistribution.java:127-141): the id's position
// s = invertPermute(id1 - startid1) under the nlinks shuffler, u = 1 - s/n, and the value of the
// first CDF point whose cumulative fraction is >= u (a step lookup, no interpolation).
type Degrees struct {
	start, n int64
	// Cap, if > 0, bounds every id's total out-degree (a dbperf option, not the original's).
	Cap      int64
	cdf      []cdfPoint
	shuffler *Shuffler
}

// NewDegrees builds the out-degree function of ids [start, end) from a distribution file.
func NewDegrees(data []byte, start, end int64) (*Degrees, error) {
	cdf, err := readSection(data, "nlinks")
	if err != nil {
		return nil, err
	}
	n := end - start
	return &Degrees{start: start, n: n, cdf: cdf, shuffler: NewShuffler(nlinksShufflerSeed, shufflerGroups, n)}, nil
}

// Total is the out-degree of id1 over all link types.
func (d *Degrees) Total(id1 int64) int64 {
	s := d.shuffler.InvertPermute(id1 - d.start)
	u := 1 - float64(s)/float64(d.n)
	i := sort.Search(len(d.cdf), func(i int) bool { return d.cdf[i].prob >= u })
	if i == len(d.cdf) {
		i-- // cannot happen: the last point is 100%
	}
	if d.Cap > 0 {
		return min(d.cdf[i].value, d.Cap)
	}
	return d.cdf[i].value
}

// LinkTypes is the number of link types and FirstLinkType the first (link_type_count = 2,
// LinkStore.DEFAULT_LINK_TYPE = 123456789; ID2Chooser.java:238-244).
const (
	LinkTypes     = 2
	FirstLinkType = 123456789
	NodeType      = 2048 // LinkStore.DEFAULT_NODE_TYPE
)

// PerType is the out-degree of id1 for one link type: the total split as evenly as possible, the
// first types getting the remainder. The original (ID2Chooser.java:255-266) computes the
// remainder as tot - tot/k instead of tot % k, which gives every type below that number one
// extra link (a bug that inflates the graph); dbperf splits correctly.
func (d *Degrees) PerType(id1, linkType int64) int64 {
	return splitDegree(d.Total(id1), linkType-FirstLinkType)
}

func splitDegree(total, typeNum int64) int64 {
	n := total / LinkTypes
	if typeNum < total%LinkTypes {
		n++
	}
	return n
}
