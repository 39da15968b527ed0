package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// checkAccess fails, before anything is created, when the system user a server runs as
// (mysql, postgres; only when dbperf runs as root) cannot enter every existing directory on the
// way to dataDir: mariadb-install-db and initdb would otherwise fail with their own text. It
// names the first directory that blocks the way and what to do.
func checkAccess(kind, dataDir, userName string) error {
	cred, err := owner(userName)
	if err != nil || cred == nil {
		return err // not root: the server runs as the caller, who gave the path
	}
	groups := map[uint32]bool{cred.Gid: true}
	if u, err := user.Lookup(userName); err == nil {
		if ids, err := u.GroupIds(); err == nil {
			for _, id := range ids {
				if g, err := strconv.ParseUint(id, 10, 32); err == nil {
					groups[uint32(g)] = true
				}
			}
		}
	}
	var dirs []string
	for d := filepath.Clean(dataDir); ; d = filepath.Dir(d) {
		dirs = append([]string{d}, dirs...)
		if d == filepath.Dir(d) {
			break
		}
	}
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // dbperf creates the rest, reachable by the server's user
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("--datadir %s: %s is not a directory", dataDir, d)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if d == filepath.Clean(dataDir) {
			return nil // the data directory itself is given to the server's user
		}
		mode := fi.Mode().Perm()
		var can bool
		switch {
		case st.Uid == cred.Uid:
			can = mode&0o100 != 0
		case groups[st.Gid]:
			can = mode&0o010 != 0
		default:
			can = mode&0o001 != 0
		}
		if !can {
			return fmt.Errorf("the %s server runs as the system user %s, which cannot enter %s (mode %04o, owner uid %d): "+
				"allow it with 'chmod o+x %s' or choose a --datadir elsewhere (e.g. /var/tmp/dbperf-%s)",
				kind, userName, d, mode, st.Uid, d, kind)
		}
	}
	return nil
}
