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
	if all := All(); !slices.Contains(all, os.Getpid()) || !slices.Contains(all, child.Process.Pid) {
		t.Errorf("All() lacks this process or its child")
	}
}
