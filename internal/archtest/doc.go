// Package archtest checks that the packages import one another only as docs/architecture.md's
// table of allowed imports says (imports_test.go). It has no code of its own.
package archtest
