package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/k8s"
	"github.com/dbperf/dbperf/internal/merge"
	"github.com/spf13/cobra"
)

// k8sCmd is `dbperf k8s`: the Indexed Job of a sharded run, and the collection and merge of
// its shards (docs/scale-out.md). Nothing here calls a cluster's API: job writes a manifest,
// collect runs kubectl.
func k8sCmd() *cobra.Command {
	c := &cobra.Command{Use: "k8s", Short: "Run a sharded run as a Kubernetes Indexed Job, and collect it"}
	c.AddCommand(k8sJobCmd(), k8sCollectCmd(), k8sShardCmd(), k8sTarCmd(), k8sReleaseCmd(), k8sDoneCmd())
	return c
}

func k8sJobCmd() *cobra.Command {
	s := k8s.JobSpec{CPU: "2", Memory: "2Gi"}
	c := &cobra.Command{
		Use:   "job --shards N --image IMAGE -- run WORKLOAD FLAGS...",
		Short: "Write the Indexed Job of a sharded run (kubectl apply -f it)",
		Long: `job writes an Indexed Job whose N pods run the command after -- as shards auto/N: one
pod per node (anti-affinity), Guaranteed QoS (--cpu and --memory are requests and limits), no
restart, the target's password from --secret (key "password", as PGPASSWORD and MYSQL_PWD;
never an argument), the run directories on --claim (a ReadWriteMany PersistentVolumeClaim), or
else in the pod until 'dbperf k8s collect' has copied them. A command without --seed gets one.`,
		Example: `  dbperf k8s job --shards 8 --image registry.example/dbperf:1 --secret pg -- run insert --target postgres://bench@pg/ib --clients 64 > job.yaml
  kubectl apply -f job.yaml && dbperf k8s collect dbperf-insert-SEED --out runs/ib-8pods`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s.Args = args
			if !slices.ContainsFunc(args, func(a string) bool { return a == "--seed" || strings.HasPrefix(a, "--seed=") }) {
				s.Args = append(slices.Clone(args), "--seed", strconv.FormatUint(randomSeed(), 10))
			}
			if s.Name == "" {
				s.Name = "dbperf-" + args[len(args)-1]
				if len(args) > 1 && args[0] == "run" {
					s.Name = "dbperf-" + args[1] + "-" + flagValue(s.Args, "seed")
				}
			}
			j, err := k8s.Job(s)
			if err != nil {
				return err
			}
			b, err := k8s.YAML(j)
			if err != nil {
				return err
			}
			_, err = c.OutOrStdout().Write(b)
			return err
		},
	}
	f := c.Flags()
	f.IntVar(&s.Shards, "shards", 0, "shards: pods, each on its own node")
	f.StringVar(&s.Image, "image", "", "the dbperf image (deploy/Containerfile; scripts/build-image.sh builds it)")
	f.StringVar(&s.Name, "name", "", "the Job's name, also the run's id at the rendezvous (default dbperf-WORKLOAD-SEED)")
	f.StringVar(&s.Namespace, "namespace", "", "the Job's namespace")
	f.StringVar(&s.Secret, "secret", "", "the Secret holding the target's password under the key password")
	f.StringVar(&s.CPU, "cpu", s.CPU, "each pod's CPU, request and limit")
	f.StringVar(&s.Memory, "memory", s.Memory, "each pod's memory, request and limit")
	f.StringVar(&s.Claim, "claim", "", "a ReadWriteMany PersistentVolumeClaim for the run directories (default: in the pod until collected)")
	return c
}

// flagValue is the value of the flag --name among args (--name VALUE or --name=VALUE), or "".
func flagValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// collectedMark is the file whose presence releases a holding pod.
const collectedMark = ".collected"

// doneMark prefixes the file a shard's pod writes beside its run directory when the run has
// ended (.done-RUN, holding the exit code): collect copies nothing before it exists, since a
// run directory is half-written until then.
const doneMark = ".done-"

// writeDone writes the done mark of the run directory out (under runsDir) with the run's
// exit code.
func writeDone(runsDir, out string, runErr error) error {
	code := 0
	if runErr != nil {
		code = -1 // it did not start
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			code = ee.ExitCode()
		}
	}
	name := filepath.Base(out)
	if out == "" {
		name = "run"
	}
	return os.WriteFile(filepath.Join(runsDir, doneMark+name), []byte(strconv.Itoa(code)+"\n"), 0o644)
}

// doneMarks reads the done marks under dir: run name to exit code.
func doneMarks(dir string) (map[string]int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, doneMark+"*"))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		code, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			continue // being written
		}
		out[strings.TrimPrefix(filepath.Base(p), doneMark)] = code
	}
	return out, nil
}

func k8sDoneCmd() *cobra.Command {
	return &cobra.Command{
		Use: "done DIR", Short: "Print the runs under DIR that have ended, with their exit codes (what collect polls)", Hidden: true,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m, err := doneMarks(args[0])
			for name, code := range m {
				fmt.Fprintf(c.OutOrStdout(), "%s %d\n", name, code)
			}
			return err
		},
	}
}

func k8sShardCmd() *cobra.Command {
	var hold bool
	var holdFor time.Duration
	runsDir := k8s.RunsDir
	c := &cobra.Command{
		Use:    "shard [--hold] -- run WORKLOAD FLAGS...",
		Short:  "A pod's command: run one shard, then, with --hold, wait until it is collected",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			cmd := exec.Command(self, args...)
			cmd.Stdout, cmd.Stderr = c.OutOrStdout(), c.ErrOrStderr()
			runErr := cmd.Run()
			if err := writeDone(runsDir, flagValue(args, "out"), runErr); err != nil {
				fmt.Fprintf(c.ErrOrStderr(), "dbperf: %v\n", err)
			}
			if hold { // the run directory lives in the pod: wait for dbperf k8s collect
				fmt.Fprintf(c.OutOrStdout(), "waiting until dbperf k8s collect has copied %s (at most %s)\n", runsDir, holdFor)
				deadline := time.Now().Add(holdFor)
				for time.Now().Before(deadline) {
					if _, err := os.Stat(filepath.Join(runsDir, collectedMark)); err == nil {
						break
					}
					time.Sleep(2 * time.Second)
				}
			}
			var ee *exec.ExitError
			if errors.As(runErr, &ee) {
				return &exitError{code: ee.ExitCode()}
			}
			return runErr
		},
	}
	c.Flags().BoolVar(&hold, "hold", false, "after the run, wait until collected")
	c.Flags().DurationVar(&holdFor, "hold-for", 24*time.Hour, "the longest to wait to be collected")
	c.Flags().StringVar(&runsDir, "runs-dir", runsDir, "where the run directories are")
	return c
}

func k8sTarCmd() *cobra.Command {
	return &cobra.Command{
		Use: "tar DIR", Short: "Write DIR as a tar stream (what collect reads through kubectl exec)", Hidden: true,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return writeTar(c.OutOrStdout(), args[0]) },
	}
}

func k8sReleaseCmd() *cobra.Command {
	return &cobra.Command{
		Use: "release [DIR]", Short: "Let a holding pod end: its runs were collected", Hidden: true,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := k8s.RunsDir
			if len(args) == 1 {
				dir = args[0]
			}
			return os.WriteFile(filepath.Join(dir, collectedMark), nil, 0o644)
		},
	}
}

// writeTar writes the regular files and directories under dir, relative to it.
func writeTar(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir || d.Name() == collectedMark || strings.HasPrefix(d.Name(), doneMark) {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name, _ = filepath.Rel(dir, p)
		if err := tw.WriteHeader(h); err != nil || !info.Mode().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			_, err = tw.Write(b)
		}
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// readTar unpacks a tar stream into dir, refusing names that leave it.
func readTar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, h.Name)
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(os.PathSeparator)) {
			return fmt.Errorf("the tar stream names %q, outside %s", h.Name, dir)
		}
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err == nil {
			err = os.WriteFile(p, b, 0o644)
		}
		if err != nil {
			return err
		}
	}
}

func k8sCollectCmd() *cobra.Command {
	var o collectOptions
	c := &cobra.Command{
		Use:   "collect JOB --out RUN",
		Short: "Wait for a Job's shards to end, copy their run directories out of the pods (kubectl) and merge them",
		Long: `collect finds the Job's pods with kubectl and waits (at most --wait) until every pod's shard
has ended (its pod writes /runs/.done-RUN with the exit code), then copies each pod's run
directories with kubectl exec (the image has no tar: dbperf writes the stream), lets the pods
end, and merges the shards into --out (written aside and renamed, so a failed merge leaves no
RUN). A shard that ended with an error is named. With --from-dir (the Job's --claim, mounted
here) it waits for the same marks there and merges the directories there. The copied shards
are kept beside the merged run, in RUN.shards/.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.collect(c, args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.out, "out", "", "the merged run directory (new)")
	f.StringVar(&o.namespace, "namespace", "", "the Job's namespace")
	f.StringVar(&o.kubectl, "kubectl", "kubectl", "the kubectl to run")
	f.StringVar(&o.fromDir, "from-dir", "", "merge the run directories under this directory (the Job's volume) instead of copying them from the pods")
	f.DurationVar(&o.wait, "wait", 24*time.Hour, "the longest to wait for the shards to end (pods scheduled late, long runs)")
	f.DurationVar(&o.poll, "poll", 5*time.Second, "how often to look whether the shards have ended")
	f.MarkHidden("poll")
	return c
}

// collectOptions are k8s collect's flags.
type collectOptions struct {
	out, namespace, kubectl, fromDir string
	wait, poll                       time.Duration
}

// collect waits for job's shards to end, gathers their run directories (from the pods, or
// under --from-dir) and merges them into --out, naming the shards that failed.
func (o collectOptions) collect(c *cobra.Command, job string) error {
	if o.out == "" {
		return fmt.Errorf("give the merged run's directory with --out")
	}
	if merge.Exists(o.out) {
		return fmt.Errorf("run directory %s already exists and is not empty: choose another --out or remove it", o.out)
	}
	src := o.fromDir
	var codes map[string]int
	var err error
	if src == "" {
		src = o.out + ".shards"
		codes, err = collectPods(c, o.kubectl, o.namespace, job, src, o.wait, o.poll)
	} else {
		codes, err = waitDir(c, src, job, o.wait, o.poll)
	}
	if err != nil {
		return err
	}
	dirs, err := shardRunDirs(src, job)
	if err != nil {
		return err
	}
	failed := failedShards(codes)
	if len(failed) > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "dbperf: shards failed: %s; their run.json says why\n", strings.Join(failed, ", "))
	}
	if merge.IsGroup(dirs[0]) { // the command had --repeat: a group of merged runs
		_, err = merge.Groups(o.out, dirs, redactArgs(os.Args))
	} else {
		_, err = merge.Runs(o.out, dirs, redactArgs(os.Args))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.OutOrStdout(), "merged %d shards of %s into %s\n", len(dirs), job, o.out)
	if len(failed) > 0 {
		return fmt.Errorf("%d shards of %s failed: %s (merged into %s all the same)", len(failed), job, strings.Join(failed, ", "), o.out)
	}
	return nil
}

// shardRunDirs are the job's run directories under src: one a pod (src/POD/JOB-*), or all in
// src itself (the Job's volume).
func shardRunDirs(src, job string) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(src, "*", job+"-*"))
	if err == nil && len(dirs) == 0 {
		dirs, err = filepath.Glob(filepath.Join(src, job+"-*"))
	}
	if err != nil || len(dirs) == 0 {
		return nil, fmt.Errorf("no run directory of job %s under %s", job, src)
	}
	return dirs, nil
}

// failedShards names the shards whose exit code was not 0, with it, in name order.
func failedShards(codes map[string]int) []string {
	var failed []string
	for _, name := range slices.Sorted(maps.Keys(codes)) {
		if codes[name] != 0 {
			failed = append(failed, fmt.Sprintf("%s (exit code %d)", name, codes[name]))
		}
	}
	return failed
}

// waitFor polls pending (the shards still running, by name) until it returns none, or fails
// after wait naming them.
func waitFor(c *cobra.Command, wait, poll time.Duration, pending func() ([]string, error)) error {
	deadline := time.Now().Add(wait)
	told := ""
	for {
		running, err := pending()
		if err != nil || len(running) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %s the shards in %s are still running: give collect a longer --wait, or look at them (kubectl logs)", wait, strings.Join(running, ", "))
		}
		if list := strings.Join(running, ", "); list != told {
			fmt.Fprintf(c.OutOrStdout(), "waiting for %d shards still running: %s\n", len(running), list)
			told = list
		}
		time.Sleep(poll)
	}
}

// waitDir waits until every shard's run under dir (the Job's volume) has its done mark: as
// many as run.json's shard count says.
func waitDir(c *cobra.Command, dir, job string, wait, poll time.Duration) (map[string]int, error) {
	var codes map[string]int
	err := waitFor(c, wait, poll, func() ([]string, error) {
		dirs, _ := filepath.Glob(filepath.Join(dir, job+"-*"))
		var err error
		if codes, err = doneMarks(dir); err != nil {
			return nil, err
		}
		count := 0
		var running []string
		for _, d := range dirs {
			var meta archive.Run
			if b, err := os.ReadFile(filepath.Join(d, "run.json")); err == nil && json.Unmarshal(b, &meta) == nil && meta.Shard != nil {
				count = meta.Shard.Count
			}
			if _, ok := codes[filepath.Base(d)]; !ok {
				running = append(running, filepath.Base(d))
			}
		}
		if len(dirs) == 0 || len(dirs) < count {
			running = append(running, fmt.Sprintf("%d not started", max(1, count-len(dirs))))
		}
		return running, nil
	})
	return codes, err
}

// collectPods waits until every pod's shard has ended, copies every pod's RunsDir into
// dst/POD and releases the pod. It returns each pod's exit code.
func collectPods(c *cobra.Command, kubectl, namespace, job, dst string, wait, poll time.Duration) (map[string]int, error) {
	base := []string{}
	if namespace != "" {
		base = append(base, "--namespace", namespace)
	}
	run := func(args ...string) ([]byte, error) {
		var stderr bytes.Buffer
		cmd := exec.Command(kubectl, append(slices.Clone(base), args...)...)
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v: %s", kubectl, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return b, nil
	}
	var pods []string
	codes := map[string]int{}
	err := waitFor(c, wait, poll, func() ([]string, error) {
		b, err := run("get", "pods", "-l", "job-name="+job, "-o", `jsonpath={range .items[*]}{.metadata.name}{"\n"}{end}`)
		if err != nil {
			return nil, err
		}
		if pods = strings.Fields(string(b)); len(pods) == 0 {
			return []string{"job " + job + " (no pods yet)"}, nil
		}
		var running []string
		for _, pod := range pods {
			if _, ok := codes[pod]; ok {
				continue
			}
			// A pod not yet started (or whose container ended without --hold) cannot be
			// exec'd into: it is waited for, and named if it never answers.
			b, err := run("exec", pod, "--", "/dbperf", "k8s", "done", k8s.RunsDir)
			lines := strings.Fields(string(b))
			if err != nil || len(lines) < 2 {
				running = append(running, pod)
				continue
			}
			code, _ := strconv.Atoi(lines[1])
			codes[pod] = code
		}
		return running, nil
	})
	if err != nil {
		return nil, err
	}
	for _, pod := range pods {
		t, err := run("exec", pod, "--", "/dbperf", "k8s", "tar", k8s.RunsDir)
		if err != nil {
			return nil, err
		}
		if err := readTar(bytes.NewReader(t), filepath.Join(dst, pod)); err != nil {
			return nil, fmt.Errorf("pod %s: %w", pod, err)
		}
		if _, err := run("exec", pod, "--", "/dbperf", "k8s", "release"); err != nil {
			return nil, err
		}
		fmt.Fprintf(c.OutOrStdout(), "copied pod %s\n", pod)
	}
	return codes, nil
}
