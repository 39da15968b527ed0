package merge

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// check refuses what does not make one run, each with one sentence: directories of different
// workloads, runs (run ids), seeds, settings or step lists; a shard count that is not the number
// of directories; a shard given twice or missing; and shards whose work overlaps.
func check(shards []shardRun) error {
	if len(shards) == 0 {
		return fmt.Errorf("give the shards' run directories to merge")
	}
	a := shards[0]
	for _, b := range shards[1:] {
		switch {
		case b.meta.Workload != a.meta.Workload:
			return fmt.Errorf("cannot merge %s and %s: they ran different workloads (%s, %s)", a.dir, b.dir, a.meta.Workload, b.meta.Workload)
		case b.shard.RunID != a.shard.RunID:
			return fmt.Errorf("cannot merge %s and %s: they are shards of different runs (run ids %q and %q)", a.dir, b.dir, a.shard.RunID, b.shard.RunID)
		case b.meta.Seed != a.meta.Seed:
			return fmt.Errorf("cannot merge %s and %s: their seeds differ (%d, %d), so their random streams are not one run's", a.dir, b.dir, a.meta.Seed, b.meta.Seed)
		case !slices.Equal(stepNames(a), stepNames(b)):
			return fmt.Errorf("cannot merge %s and %s: their step lists differ (%s; %s)", a.dir, b.dir, strings.Join(stepNames(a), ","), strings.Join(stepNames(b), ","))
		case !reflect.DeepEqual(a.meta.Settings, b.meta.Settings):
			return fmt.Errorf("cannot merge %s and %s: their settings differ (%s)", a.dir, b.dir, settingsDiff(a.meta.Settings, b.meta.Settings))
		}
	}
	n := a.shard.Count
	seen := make(map[int]string)
	for _, s := range shards {
		if s.shard.Count != n {
			return fmt.Errorf("cannot merge %s and %s: one is a shard of %d, the other of %d", a.dir, s.dir, n, s.shard.Count)
		}
		if d, dup := seen[s.shard.Index]; dup {
			return fmt.Errorf("cannot merge: %s and %s are both shard %d/%d (overlapping work)", d, s.dir, s.shard.Index, n)
		}
		seen[s.shard.Index] = s.dir
	}
	if len(shards) != n {
		var missing []string
		for i := range n {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		return fmt.Errorf("cannot merge: the run has %d shards and %d directories were given (missing shard %s)", n, len(shards), strings.Join(missing, ", "))
	}
	return overlap(shards)
}

// overlap refuses shards whose ranges of one kind of work intersect.
func overlap(shards []shardRun) error {
	for i, a := range shards {
		for _, b := range shards[i+1:] {
			for kind, ra := range a.shard.Work {
				rb, ok := b.shard.Work[kind]
				if ok && ra[0] < rb[1] && rb[0] < ra[1] {
					return fmt.Errorf("cannot merge %s and %s: their work overlaps (%s %d..%d and %d..%d)", a.dir, b.dir, kind, ra[0], ra[1]-1, rb[0], rb[1]-1)
				}
			}
		}
	}
	return nil
}

func stepNames(s shardRun) []string {
	var names []string
	for _, st := range s.meta.Steps {
		names = append(names, st.Name)
	}
	return names
}

// settingsDiff names the settings whose values differ.
func settingsDiff(a, b map[string]any) string {
	var diff []string
	for k, v := range a {
		if !reflect.DeepEqual(v, b[k]) {
			diff = append(diff, fmt.Sprintf("%s %v vs %v", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s missing vs %v", k, v))
		}
	}
	sort.Strings(diff)
	return strings.Join(diff, ", ")
}
