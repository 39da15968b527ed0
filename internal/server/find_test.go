package server

import "testing"

func TestDataDirOf(t *testing.T) {
	for _, c := range []struct {
		kind string
		args []string
		want string
	}{
		{"mariadb", []string{"/usr/sbin/mariadbd", "--defaults-file=/tmp/x/dbperf.cnf"}, "/tmp/x"},
		{"mariadb", []string{"/usr/sbin/mariadbd", "--defaults-file=/etc/mysql/my.cnf"}, ""},
		{"postgres", []string{"/usr/lib/postgresql/15/bin/postgres", "-D", "/tmp/y/data"}, "/tmp/y"},
		{"postgres", []string{"postgres: checkpointer "}, ""},
		{"postgres", []string{"/usr/sbin/mariadbd", "--defaults-file=/tmp/x/dbperf.cnf"}, ""},
	} {
		if got := dataDirOf(c.kind, c.args); got != c.want {
			t.Errorf("dataDirOf(%s, %q) = %q, want %q", c.kind, c.args, got, c.want)
		}
	}
}
