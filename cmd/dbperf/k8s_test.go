package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// TestK8sJobManifest: dbperf k8s job writes an Indexed Job that decodes strictly into the API's
// type, with a seed added for every shard and the run named after it; a password among the
// arguments is refused without being printed.
func TestK8sJobManifest(t *testing.T) {
	r := run(t, t.TempDir(), "k8s", "job", "--shards", "3", "--image", "img:1", "--secret", "pg", "--",
		"run", "insert", "--target", "postgres://bench@pg:5432/ib", "--clients", "6")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(r.stdout), &j); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	args := j.Spec.Template.Spec.Containers[0].Args
	seed := flagValue(args, "seed")
	if seed == "" || j.Name != "dbperf-insert-"+seed || *j.Spec.Completions != 3 || !strings.Contains(strings.Join(args, " "), "--shard auto/3") {
		t.Fatalf("job %s, args %v", j.Name, args)
	}
	r = run(t, t.TempDir(), "k8s", "job", "--shards", "3", "--image", "img:1", "--", "run", "insert", "--target", "postgres://bench:hunter2@pg/ib")
	if r.code == 0 || !strings.Contains(r.stderr, "put it in a Secret") || strings.Contains(r.stderr+r.stdout, "hunter2") {
		t.Fatalf("a password in the arguments: %d %s", r.code, r.stderr)
	}
}

// fakeKubectl is kubectl for a cluster whose pods are directories: get lists them, exec runs
// dbperf on the pod's directory (what the pod's own dbperf does on /runs).
const fakeKubectl = `#!/bin/sh
case "$1" in
get) ls "$FAKE_PODS"; exit 0 ;;
exec) pod=$2; shift 4; exec "$DBPERF" k8s "$2" "$FAKE_PODS/$pod/runs" ;;
esac
exit 1
`

// TestK8sCollect: collect, started while two shards (SQLite, met at --start-at, each in a
// pod's directory under dbperf k8s shard) are still running, waits for each pod's done mark,
// then copies the run directories through kubectl exec's tar stream, releases the pods and
// merges complete runs into one. A pod that never ends makes collect fail at --wait, naming it.
func TestK8sCollect(t *testing.T) {
	dir := t.TempDir()
	pods := filepath.Join(dir, "pods")
	kubectl := filepath.Join(dir, "kubectl")
	if err := os.WriteFile(kubectl, []byte(fakeKubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	collect := func(pods string, args ...string) *exec.Cmd {
		cmd := exec.Command(dbperfBin, append([]string{"k8s", "collect", "job", "--kubectl", kubectl, "--poll", "100ms"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "FAKE_PODS="+pods, "DBPERF="+dbperfBin)
		return cmd
	}
	at := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	done := make(chan result, 2)
	for i, pod := range []string{"job-0-abc", "job-1-def"} {
		runs := filepath.Join(pods, pod, "runs")
		if err := os.MkdirAll(runs, 0o755); err != nil {
			t.Fatal(err)
		}
		go func() {
			done <- run(t, dir, "k8s", "shard", "--runs-dir", runs, "--", "run", "insert", "--target", "sqlite:"+filepath.Join(pods, pod, "db.sqlite"),
				"--steps", "l.i0,l.x", "--clients", "4", "--rows", "500", "--seed", "3", "--shard", fmt.Sprintf("%d/2", i), "--start-at", at,
				"--run-id", "job", "--quiet", "--out", filepath.Join(runs, fmt.Sprintf("job-%d", i)))
		}()
	}
	// The shards wait for --start-at: collect starts before either has written anything.
	out, err := collect(pods, "--out", "merged").CombinedOutput()
	for range 2 {
		if r := <-done; r.code != 0 {
			t.Fatalf("shard: %s %s", r.stdout, r.stderr)
		}
	}
	if err != nil {
		t.Fatalf("collect: %v\n%s", err, out)
	}
	meta, steps, err := archive.Read(filepath.Join(dir, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Shards) != 2 || !meta.Complete || steps[0].Ops["insert"].Count != 4*500 || meta.Shards[0].Rendezvous != "start-at" {
		t.Fatalf("merged: %d shards, complete %v, %d rows loaded\n%s", len(meta.Shards), meta.Complete, steps[0].Ops["insert"].Count, out)
	}
	for _, pod := range []string{"job-0-abc", "job-1-def"} {
		if _, err := os.Stat(filepath.Join(pods, pod, "runs", collectedMark)); err != nil {
			t.Errorf("pod %s was not released: %v", pod, err)
		}
	}

	// A pod whose shard never ends: collect gives up after --wait, names it, and writes nothing.
	stuck := filepath.Join(dir, "stuck")
	if err := os.MkdirAll(filepath.Join(stuck, "job-0-xyz", "runs", "job-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err = collect(stuck, "--out", "never", "--wait", "500ms").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "job-0-xyz are still running") {
		t.Fatalf("collect of a running shard: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); err == nil {
		t.Error("a collect that timed out left its run directory")
	}
}

// TestK8sShardHolds: without a volume, a shard's pod stays until collected.
func TestK8sShardHolds(t *testing.T) {
	runs := t.TempDir()
	cmd := exec.Command(dbperfBin, "k8s", "shard", "--hold", "--runs-dir", runs, "--", "targets")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the shard ended before it was collected: %v", err)
	case <-time.After(time.Second):
	}
	if r := run(t, runs, "k8s", "release", runs); r.code != 0 {
		t.Fatal(r.stderr)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the shard did not end after it was released")
	}
}
