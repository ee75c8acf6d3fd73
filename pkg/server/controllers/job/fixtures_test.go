package job

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// testJob is a running NonIndexed Job of completions and parallelism,
// started a minute before t0; opts shape it.
func testJob(completions, parallelism int32, opts ...func(*batchv1.Job)) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Completions: &completions, Parallelism: &parallelism, BackoffLimit: ptr[int32](6),
			CompletionMode: ptr(batchv1.NonIndexedCompletion), Suspend: ptr(false),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "job-uid"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"batch.kubernetes.io/controller-uid": "job-uid", "batch.kubernetes.io/job-name": "pi"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "perl"}}},
			},
		},
	}
	j.Status.StartTime = ptr(metav1.NewTime(t0.Add(-time.Minute)))
	for _, o := range opts {
		o(j)
	}
	return j
}

func indexedJob(j *batchv1.Job) { j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion) }

// testPod is a pod of the Job, tracked, in phase; opts shape it.
func testPod(name string, phase corev1.PodPhase, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: name, UID: types.UID(name + "-uid"),
			Labels:            map[string]string{"batch.kubernetes.io/controller-uid": "job-uid"},
			Finalizers:        []string{batchv1.JobTrackingFinalizer},
			CreationTimestamp: metav1.NewTime(t0.Add(-time.Minute)),
		},
		Spec:   corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: phase},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func atIndex(ix int) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(ix)}
	}
}

func untracked(p *corev1.Pod) { p.Finalizers = nil }

func ready(p *corev1.Pod) {
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue})
}

func deleting(p *corev1.Pod) { p.DeletionTimestamp = ptr(metav1.NewTime(t0.Add(-time.Second))) }

// exited gives the pod's container c a termination with code at t.
func exited(code int32, at time.Time) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: code, FinishedAt: metav1.NewTime(at)}}}}
	}
}

func names(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func conditionTypes(cs []batchv1.JobCondition) string {
	out := ""
	for _, c := range cs {
		out += fmt.Sprintf("%s=%s/%s;", c.Type, c.Status, c.Reason)
	}
	return out
}

func metav1Time(t time.Time) metav1.Time { return metav1.NewTime(t) }

var testKey = types.NamespacedName{Namespace: "ns", Name: "pi"}
