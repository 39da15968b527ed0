package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/dbperf/dbperf/internal/archive"
)

// IsGroup tells whether dir is a run group (a shard's --repeat runs, group.json).
func IsGroup(dir string) bool {
	_, ok, _ := archive.ReadGroup(dir)
	return ok
}

// Groups merges the run groups that the shards of a sharded run with --repeat wrote, repeat by
// repeat: out/rep-K is the merge of every shard's rep-K (Runs), and out/group.json lists them,
// so that summary and compare read the merged group as any run group. Like Runs, it writes
// into a temporary directory beside out and renames it only when every repeat merged.
func Groups(out string, dirs []string, command []string) (archive.Group, error) {
	var groups []archive.Group
	failed := map[string]bool{}
	for _, d := range dirs {
		g, ok, err := archive.ReadGroup(d)
		if err != nil {
			return archive.Group{}, err
		}
		if !ok {
			return archive.Group{}, fmt.Errorf("%s is a run group and %s is not: give every shard's group (--repeat), or every shard's run", dirs[0], d)
		}
		if len(groups) > 0 && !slices.Equal(g.Runs, groups[0].Runs) {
			return archive.Group{}, fmt.Errorf("the shard groups %s and %s hold different repeats (%v, %v): merge the groups of one sharded run", dirs[0], d, groups[0].Runs, g.Runs)
		}
		groups = append(groups, g)
		for _, r := range g.Failed {
			failed[r] = true
		}
	}
	if Exists(out) {
		return archive.Group{}, fmt.Errorf("run directory %s already exists and is not empty: choose another --out or remove it", out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return archive.Group{}, fmt.Errorf("cannot create run group: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".merging-")
	if err != nil {
		return archive.Group{}, fmt.Errorf("cannot create run group: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed
	g := archive.Group{Name: filepath.Base(out), Workload: groups[0].Workload, Repeats: groups[0].Repeats}
	for _, run := range groups[0].Runs {
		var runs []string
		for _, d := range dirs {
			runs = append(runs, filepath.Join(d, run))
		}
		meta, err := Runs(filepath.Join(tmp, run), runs, command)
		if err != nil {
			return g, fmt.Errorf("repeat %s: %w", run, err)
		}
		g.Runs, g.Seeds = append(g.Runs, run), append(g.Seeds, meta.Seed)
		if failed[run] || !meta.Complete {
			g.Failed = append(g.Failed, run)
		}
	}
	if err := archive.WriteGroup(tmp, g); err != nil {
		return g, err
	}
	os.Chmod(tmp, 0o755)
	os.Remove(out) // an empty directory given as --out
	if err := os.Rename(tmp, out); err != nil {
		return g, fmt.Errorf("cannot move the merged group into %s: %w", out, err)
	}
	return g, nil
}
