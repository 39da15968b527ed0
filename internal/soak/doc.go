// Package soak holds the soak test (soak_test.go): a long open-loop run of the dbperf binary
// whose RSS must stay flat and whose per-second rows must come on time. It is not part of the
// test command; docs/reliability.md gives the command and its figures.
package soak
