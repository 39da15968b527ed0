package crash

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// Setting is one row of the lost-commit table: a target and its settings.
type Setting struct {
	Kind     string
	Settings map[string]string
}

// Name is the setting's directory name: kind and settings, in order.
func (s Setting) Name() string {
	var parts []string
	for k, v := range s.Settings {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return s.Kind + "-defaults"
	}
	return s.Kind + "-" + strings.Join(parts, ",")
}

func kv(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// TableSettings are the settings docs/reliability.md measures.
var TableSettings = []Setting{
	{"sqlite", kv("synchronous", "OFF", "journal_mode", "WAL")},
	{"sqlite", kv("synchronous", "NORMAL", "journal_mode", "WAL")},
	{"sqlite", kv("synchronous", "FULL", "journal_mode", "WAL")},
	{"sqlite", kv("synchronous", "OFF", "journal_mode", "DELETE")},
	{"sqlite", kv("synchronous", "NORMAL", "journal_mode", "DELETE")},
	{"sqlite", kv("synchronous", "FULL", "journal_mode", "DELETE")},
	{"pebble", kv("sync", "true")},
	{"pebble", kv("sync", "false")},
	{"rocksdb", kv("sync", "true")},
	{"rocksdb", kv("sync", "false")},
	{"bbolt", kv("NoSync", "false")},
	{"bbolt", kv("NoSync", "true")},
	{"badger", kv("SyncWrites", "true")},
	{"badger", kv("SyncWrites", "false")},
	{"postgres", kv("synchronous_commit", "on")},
	{"postgres", kv("synchronous_commit", "off")},
	{"postgres", kv("fsync", "off")},
	{"mariadb-innodb", kv("innodb_flush_log_at_trx_commit", "1")},
	{"mariadb-innodb", kv("innodb_flush_log_at_trx_commit", "2")},
	{"mariadb-innodb", kv("innodb_flush_log_at_trx_commit", "0")},
	{"mariadb-myrocks", kv("rocksdb_flush_log_at_trx_commit", "1")},
	{"mariadb-myrocks", kv("rocksdb_flush_log_at_trx_commit", "2")},
	{"mariadb-myrocks", kv("rocksdb_flush_log_at_trx_commit", "0")},
}

// RunTable runs base (its crashes, clients, layer...) for every setting whose kind is in kinds
// (all if empty) under every kill, each into out/NAME-KILL, and returns the directories made.
// A setting that fails is reported on log and the table goes on.
// Servers take serverCrashes crashes (base's when 0): each costs a restart.
func RunTable(ctx context.Context, base Config, kinds, kills []string, serverCrashes int, out string, log io.Writer) []string {
	var dirs []string
	for _, s := range TableSettings {
		if len(kinds) > 0 && !contains(kinds, s.Kind) {
			continue
		}
		for _, kill := range kills {
			cfg := base
			cfg.Kind, cfg.Settings, cfg.Kill = s.Kind, s.Settings, kill
			if isServer(s.Kind) && serverCrashes > 0 {
				cfg.Crashes = serverCrashes
			}
			cfg.Out = filepath.Join(out, s.Name()+"-"+kill)
			fmt.Fprintf(log, "== %s, kill %s\n", s.Name(), kill)
			sum, err := Run(ctx, cfg)
			if err != nil {
				fmt.Fprintf(log, "%s: %v\n", cfg.Out, err)
			}
			if sum != nil {
				fmt.Fprintln(log, sum.Verdict)
				dirs = append(dirs, cfg.Out)
			}
			if ctx.Err() != nil {
				return dirs
			}
		}
	}
	return dirs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
