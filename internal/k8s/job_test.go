package k8s

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func spec() JobSpec {
	return JobSpec{Name: "ib-8", Image: "registry.example/dbperf:1", Shards: 8, Secret: "pg", CPU: "2", Memory: "2Gi",
		Args: []string{"run", "insert", "--target", "postgres://bench@pg:5432/ib", "--clients", "64", "--seed", "7"}}
}

// decode turns the written manifest back into the API's typed Job, strictly: a field the
// API does not know fails.
func decode(t *testing.T, s JobSpec) *batchv1.Job {
	t.Helper()
	j, err := Job(s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := YAML(j)
	if err != nil {
		t.Fatal(err)
	}
	var got batchv1.Job
	if err := yaml.UnmarshalStrict(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return &got
}

// TestIndexedJob: the manifest decodes into an Indexed Job of one pod per shard, run at once,
// never restarted, with Guaranteed QoS, on different nodes, the password from the Secret.
func TestIndexedJob(t *testing.T) {
	j := decode(t, spec())
	s := j.Spec
	if j.Kind != "Job" || j.APIVersion != "batch/v1" || *s.CompletionMode != batchv1.IndexedCompletion ||
		*s.Completions != 8 || *s.Parallelism != 8 || s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0 {
		t.Fatalf("job spec: %+v", s)
	}
	p := s.Template.Spec
	if p.RestartPolicy != corev1.RestartPolicyNever || len(p.Containers) != 1 {
		t.Fatalf("pod spec: %+v", p)
	}
	c := p.Containers[0]
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} { // Guaranteed QoS
		req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
		if req.IsZero() || req.Cmp(lim) != 0 {
			t.Errorf("%s: request %s, limit %s: not Guaranteed", r, req.String(), lim.String())
		}
	}
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"k8s shard --hold -- run insert", "--shard auto/8", "--run-id ib-8", "--out /runs/ib-8-$(SHARD_INDEX)", "--seed 7"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["PGPASSWORD"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Name != "pg" || e.Value != "" {
		t.Errorf("PGPASSWORD: %+v", e)
	}
	if e := env[IndexEnv]; e.ValueFrom == nil || !strings.Contains(e.ValueFrom.FieldRef.FieldPath, "job-completion-index") {
		t.Errorf("%s: %+v", IndexEnv, e)
	}
	aa := p.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(aa) != 1 || aa[0].TopologyKey != "kubernetes.io/hostname" || aa[0].LabelSelector.MatchLabels["dbperf/run"] != "ib-8" ||
		s.Template.Labels["dbperf/run"] != "ib-8" {
		t.Errorf("anti-affinity: %+v", aa)
	}
	if p.Volumes[0].EmptyDir == nil {
		t.Errorf("without a claim the runs go to an emptyDir: %+v", p.Volumes[0])
	}
	sp := spec()
	sp.Claim = "runs"
	j = decode(t, sp)
	if v := j.Spec.Template.Spec.Volumes[0]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "runs" ||
		strings.Contains(strings.Join(j.Spec.Template.Spec.Containers[0].Args, " "), "--hold") {
		t.Errorf("with a claim: %+v", j.Spec.Template.Spec)
	}
}

// TestJobRefusals: a password in the arguments, the job's own flags, no seed.
func TestJobRefusals(t *testing.T) {
	for _, c := range []struct {
		edit func(*JobSpec)
		want string
	}{
		{func(s *JobSpec) { s.Args[3] = "postgres://bench:hunter2@pg/ib" }, "holds a password: put it in a Secret"},
		{func(s *JobSpec) { s.Args = append(s.Args, "--shard", "0/2") }, "sets --shard itself"},
		{func(s *JobSpec) { s.Args = s.Args[:len(s.Args)-2] }, "give the command a --seed"},
		{func(s *JobSpec) { s.CPU = "two" }, "not a Kubernetes quantity"},
	} {
		s := spec()
		c.edit(&s)
		_, err := Job(s)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
