package hostproc

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestThisProcess checks every answer against this process and a child it starts.
func TestThisProcess(t *testing.T) {
	if !Exists(os.Getpid()) || Exists(-1) {
		t.Errorf("Exists(self) %v, Exists(-1) %v", Exists(os.Getpid()), Exists(-1))
	}
	if ppid, err := Parent(os.Getpid()); err != nil || ppid != os.Getppid() {
		t.Errorf("Parent(self) = %d, %v; want %d", ppid, err, os.Getppid())
	}
	if args := Cmdline(os.Getpid()); len(args) == 0 || args[0] != os.Args[0] {
		t.Errorf("Cmdline(self) = %q, want it to start with %q", args, os.Args[0])
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if kids := Children(os.Getpid()); !slices.Contains(kids, child.Process.Pid) {
		t.Errorf("Children(self) = %v, want it to hold %d", kids, child.Process.Pid)
	}
	if kids, ok := childLists(os.Getpid()); ok && !slices.Equal(kids, scanChildren(os.Getpid())) {
		t.Errorf("the threads' child lists say %v, the scan of every process %v", kids, scanChildren(os.Getpid()))
	}
	if all := All(); !slices.Contains(all, os.Getpid()) || !slices.Contains(all, child.Process.Pid) {
		t.Errorf("All() lacks this process or its child")
	}
}

// BenchmarkChildren compares the two ways Children can answer for this process (a child
// started, so that there is one to find): "lists" reads its threads' child lists, "scan" every
// process's stat file. Both cost more on a host with more processes or threads.
func BenchmarkChildren(b *testing.B) {
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if _, ok := childLists(os.Getpid()); !ok {
		b.Skip("this kernel keeps no child lists (CONFIG_PROC_CHILDREN)")
	}
	b.Run("lists", func(b *testing.B) {
		for b.Loop() {
			childLists(os.Getpid())
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			scanChildren(os.Getpid())
		}
	})
}
