package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Group is a run group: the same run repeated (--repeat N), each repeat a run directory of the
// group's directory, from an empty database with its own seed. group.json lists them.
type Group struct {
	Name     string   `json:"name"`
	Workload string   `json:"workload"`
	Repeats  int      `json:"repeats"` // asked for
	Runs     []string `json:"runs"`    // run directories, relative to the group's
	Seeds    []uint64 `json:"seeds"`
	Failed   []string `json:"failed,omitempty"` // runs that failed or were interrupted
}

// GroupFile names a group's description in its directory.
const GroupFile = "group.json"

// WriteGroup (re)writes a group's group.json.
func WriteGroup(dir string, g Group) error { return WriteJSON(filepath.Join(dir, GroupFile), g) }

// ReadGroup reads a group's group.json; ok is false when dir is not a group.
func ReadGroup(dir string) (g Group, ok bool, err error) {
	ok, err = readJSONIfThere(dir, GroupFile, &g)
	return g, ok, err
}

// readJSONIfThere reads dir/name into v; false when the file does not exist.
func readJSONIfThere(dir, name string, v any) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s/%s: %w", dir, name, err)
	}
	return true, nil
}
