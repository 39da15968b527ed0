package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// searchSection is a search's part of the page (`dbperf search` runs only): one chart of its
// trials, rate offered (or clients) against rate achieved (left) and p50, p99, p99.9 and an open
// loop's service-time p99 (right, log), and a note of every trial's verdict and the answer. nil
// for runs that are not searches.
func searchSection(runs []Run, names []string) (*htmlStep, *htmlChart, error) {
	c := &htmlChart{ID: "search", Step: "search", Kind: "search", Title: "search: rate offered against rate achieved and latency",
		XLabel: "rate offered, per second", Scales: map[string]htmlScale{
			"rate": {Label: "achieved per second", Side: 3}, "us": {Label: "µs (log)", Log: true, Side: 1}}}
	type point struct {
		rate float64
		t    archive.Trial
	}
	var notes []string
	perRun := make([][]point, len(runs))
	xs := map[float64]bool{}
	clientsOnly := true // every search varied clients: the x axis is a count
	for ri, r := range runs {
		s, ok, err := archive.ReadSearch(r.Path)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		unit, what := "/s", "rate"
		if s.Vary == "clients" {
			unit, what = " clients", "client count"
		} else {
			clientsOnly = false
		}
		var verdicts []string
		for i, t := range s.Trials {
			perRun[ri] = append(perRun[ri], point{t.Rate, t})
			xs[t.Rate] = true
			verdicts = append(verdicts, fmt.Sprintf("%d. %.0f%s: %s", i+1, t.Rate, unit, t.Why))
		}
		answer := fmt.Sprintf("highest passing %s %.0f%s (%s)", what, s.Rate, unit, s.Reason)
		if s.Rate == 0 {
			answer = "no " + what + " passed (" + s.Reason + ")"
		}
		notes = append(notes, fmt.Sprintf("%s, step %s for %s: %s. Trials: %s. Rule: %s.", names[ri], s.Step,
			strings.Join(s.SLAs, ", "), answer, strings.Join(verdicts, "; "), s.Rule))
	}
	if len(xs) == 0 {
		return nil, nil, nil
	}
	if clientsOnly {
		c.XLabel, c.Title = "clients of a closed loop", "search: clients against rate achieved and latency"
	}
	for x := range xs {
		c.X = append(c.X, x)
	}
	sort.Float64s(c.X)
	add := func(ri int, what, scale string, dash []int, get func(archive.Trial) float64) {
		ys := make([]*float64, len(c.X))
		for _, p := range perRun[ri] {
			v := get(p.t)
			if scale == "us" && v <= 0 {
				continue
			}
			i := sort.SearchFloat64s(c.X, p.rate)
			ys[i] = &v
		}
		c.Series = append(c.Series, htmlSeries{Label: names[ri] + " " + what, What: what, Run: ri, Scale: scale, Dash: dash})
		c.Y = append(c.Y, ys)
	}
	seenSLA := map[string]bool{}
	for ri := range runs {
		if len(perRun[ri]) == 0 {
			continue
		}
		for _, t := range perRun[ri] {
			for _, r := range t.t.SLAs {
				sla, err := measure.ParseSLA(r.SLA)
				if err != nil || seenSLA[r.SLA] {
					continue
				}
				seenSLA[r.SLA] = true
				bound := measure.Micros(int64(sla.Bound))
				ys := make([]*float64, len(c.X))
				for i := range ys {
					ys[i] = &bound
				}
				c.Series = append(c.Series, htmlSeries{Label: "SLA " + r.SLA, What: "sla", Run: ri, Scale: "us", Dash: slaDash})
				c.Y = append(c.Y, ys)
			}
		}
		add(ri, "achieved", "rate", nil, func(t archive.Trial) float64 { return t.Achieved })
		add(ri, "p50", "us", []int{2, 2}, func(t archive.Trial) float64 { return t.P50Us })
		add(ri, "p99", "us", []int{6, 3}, func(t archive.Trial) float64 { return t.P99Us })
		add(ri, "p99.9", "us", []int{8, 3, 2, 3}, func(t archive.Trial) float64 { return t.P999Us })
		if slices.ContainsFunc(perRun[ri], func(p point) bool { return p.t.ServiceP99Us > 0 }) {
			add(ri, "service p99", "us", []int{1, 3}, func(t archive.Trial) float64 { return t.ServiceP99Us })
		}
	}
	st := &htmlStep{Name: "search", Anchor: "search", Charts: []string{c.ID}, Note: strings.Join(notes, " ")}
	return st, c, nil
}
