// Package k8s writes the Kubernetes manifests of a sharded run: an Indexed Job whose pods are
// the shards (docs/scale-out.md). It uses the Kubernetes API types, so that what it writes is
// what the API server decodes; it never calls a cluster (dbperf k8s collect runs kubectl).
package k8s

import (
	"fmt"
	"net/url"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// JobSpec is what `dbperf k8s job` is given.
type JobSpec struct {
	Name, Namespace, Image string
	Shards                 int
	// Args is the dbperf command each shard runs (run insert --target ... --clients 64), without
	// --shard, which the Job adds as auto/N.
	Args []string
	// Secret names the Secret holding the target's password under the key "password"; it
	// reaches the pods as PGPASSWORD and MYSQL_PWD, never as an argument.
	Secret string
	// CPU and Memory are each pod's requests and limits, equal: Guaranteed QoS.
	CPU, Memory string
	// Claim is a PersistentVolumeClaim (ReadWriteMany) the pods write their run directories to;
	// without it they write to an emptyDir and wait until dbperf k8s collect has copied them.
	Claim string
}

// RunsDir is where each pod's run directories go.
const RunsDir = "/runs"

// IndexEnv carries the pod's completion index into its arguments ($(SHARD_INDEX)).
const IndexEnv = "SHARD_INDEX"

// Args are the arguments a shard's container runs: dbperf k8s shard (which runs the command
// and, without a volume, waits to be collected), the command with --shard auto/N, the run's
// seed and id fixed for every shard, and its run directory under RunsDir.
func (s JobSpec) args() []string {
	out := []string{"k8s", "shard"}
	if s.Claim == "" {
		out = append(out, "--hold")
	}
	out = append(out, "--")
	out = append(out, s.Args...)
	return append(out, "--shard", fmt.Sprintf("auto/%d", s.Shards), "--run-id", s.Name,
		"--out", fmt.Sprintf("%s/%s-$(%s)", RunsDir, s.Name, IndexEnv))
}

// Job is the Indexed Job of the sharded run: one pod per shard, each with its completion index
// in JOB_COMPLETION_INDEX; completions and parallelism both the shard count (all shards must
// run at once: they meet at barriers); no restart and no retry of an index (a restarted shard
// would be a new run's); Guaranteed QoS; and anti-affinity so that no two shards share a node.
func Job(s JobSpec) (*batchv1.Job, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	n, zero := int32(s.Shards), int32(0)
	mode := batchv1.IndexedCompletion
	labels := map[string]string{"app.kubernetes.io/name": "dbperf", "dbperf/run": s.Name}
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(s.CPU), corev1.ResourceMemory: resource.MustParse(s.Memory)}
	c := corev1.Container{
		Name: "dbperf", Image: s.Image, Args: s.args(),
		Resources:    corev1.ResourceRequirements{Requests: res, Limits: res},
		Env:          s.env(),
		VolumeMounts: []corev1.VolumeMount{{Name: "runs", MountPath: RunsDir}},
	}
	vol := corev1.Volume{Name: "runs", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	if s.Claim != "" {
		vol.VolumeSource = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.Claim}}
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: &mode, Completions: &n, Parallelism: &n, BackoffLimitPerIndex: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{c},
					Volumes:       []corev1.Volume{vol},
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"dbperf/run": s.Name}},
							TopologyKey:   "kubernetes.io/hostname",
						}},
					}},
				},
			},
		},
	}, nil
}

// env is the container's environment: the shard index for the arguments, and the password
// from the Secret.
func (s JobSpec) env() []corev1.EnvVar {
	env := []corev1.EnvVar{{Name: IndexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}
	if s.Secret != "" {
		for _, name := range []string{"PGPASSWORD", "MYSQL_PWD"} {
			env = append(env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: s.Secret}, Key: "password"}}})
		}
	}
	return env
}

// check refuses what would not make a sharded run: a password among the arguments (it belongs
// in the Secret), a --shard or --out of the command's own, a missing seed (the shards must
// share one), or a size that Kubernetes would not take.
func (s JobSpec) check() error {
	if s.Shards < 1 || s.Image == "" || s.Name == "" {
		return fmt.Errorf("a job needs --shards (1 or more), --image and --name")
	}
	for _, q := range []string{s.CPU, s.Memory} {
		if _, err := resource.ParseQuantity(q); err != nil {
			return fmt.Errorf("%q is not a Kubernetes quantity (e.g. 2, 500m, 4Gi)", q)
		}
	}
	seed := false
	for i, a := range s.Args {
		flag, _, _ := strings.Cut(a, "=")
		switch flag {
		case "--shard", "--out", "--run-id":
			return fmt.Errorf("the job sets %s itself: leave it out of the command", flag)
		case "--seed":
			seed = true
		}
		if hasPassword(a) {
			return fmt.Errorf("argument %d holds a password: put it in a Secret (kubectl create secret generic NAME --from-literal=password=...) and give --secret NAME", i+1)
		}
	}
	if !seed {
		return fmt.Errorf("give the command a --seed: every shard must draw from the same one")
	}
	return nil
}

// hasPassword tells whether an argument is a URL with a password.
func hasPassword(a string) bool {
	_, v, ok := strings.Cut(a, "=")
	if !ok {
		v = a
	}
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		return false
	}
	_, set := u.User.Password()
	return set
}

// YAML is the manifest as kubectl apply takes it.
func YAML(j *batchv1.Job) ([]byte, error) { return yaml.Marshal(j) }
