package sqldriver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// CacheInfo is what a cached-by-OS comparison needs to know about a server: the config dbperf
// started it with, the DBMS's own cache and the database's size (bytes).
type CacheInfo struct {
	Config          string // "" when dbperf did not start the server
	Cache, Database int64
}

// startedConfig reads the config name dbperf's server start recorded next to the data directory
// (internal/server's dbperf-started file: the config, then the port).
func startedConfig(dataDir string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Clean(dataDir)), "dbperf-started"))
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// CacheInfo implements the Insert Benchmark's cache check on MySQL/MariaDB: the engine's cache
// (innodb_buffer_pool_size or rocksdb_block_cache_size) and the database's size as dbgb1.
func (m *MySQL) CacheInfo(ctx context.Context) (CacheInfo, error) {
	var ci CacheInfo
	if dir, err := m.DataDir(ctx); err == nil {
		ci.Config = startedConfig(dir)
	}
	v := "@@GLOBAL.innodb_buffer_pool_size"
	if m.engine.rocksDB() {
		v = "@@GLOBAL.rocksdb_block_cache_size"
	}
	if err := m.db.QueryRowContext(ctx, "SELECT "+v).Scan(&ci.Cache); err != nil {
		return ci, err
	}
	var err error
	ci.Database, err = m.DatabaseSize(ctx)
	return ci, err
}

// CacheInfo implements the Insert Benchmark's cache check on PostgreSQL: shared_buffers and
// pg_database_size.
func (p *Postgres) CacheInfo(ctx context.Context) (CacheInfo, error) {
	var ci CacheInfo
	if dir, err := p.DataDir(ctx); err == nil {
		ci.Config = startedConfig(dir)
	}
	if err := p.Admin().QueryRow(ctx, "SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings WHERE name = 'shared_buffers'").Scan(&ci.Cache); err != nil {
		return ci, err
	}
	var err error
	ci.Database, err = p.DatabaseSize(ctx)
	return ci, err
}
