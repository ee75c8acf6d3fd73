package job

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

func TestNewPod(t *testing.T) {
	indexEnv := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}
	failed := testPod("old", corev1.PodFailed, func(p *corev1.Pod) {
		p.Annotations = map[string]string{batchv1.JobIndexFailureCountAnnotation: "1", batchv1.JobIndexIgnoredFailureCountAnnotation: "2"}
	})
	tests := []struct {
		name         string
		job          *batchv1.Job
		index        int
		replaced     *corev1.Pod
		generateName string
		hostname     string
		annotations  map[string]string
		labels       map[string]string
		env          []corev1.EnvVar
	}{
		{name: "NonIndexed", job: testJob(5, 2), index: noIndex, generateName: "pi-",
			labels: map[string]string{"batch.kubernetes.io/controller-uid": "job-uid", "batch.kubernetes.io/job-name": "pi"}},
		{name: "Indexed", job: testJob(5, 2, indexedJob), index: 3, generateName: "pi-3-", hostname: "pi-3",
			annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: "3"},
			labels:      map[string]string{"batch.kubernetes.io/controller-uid": "job-uid", "batch.kubernetes.io/job-name": "pi", batchv1.JobCompletionIndexAnnotation: "3"},
			env:         []corev1.EnvVar{indexEnv}},
		{name: "Indexed, own variable kept", index: 0, generateName: "pi-0-", hostname: "pi-0",
			job: testJob(5, 2, indexedJob, func(j *batchv1.Job) {
				j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "JOB_COMPLETION_INDEX", Value: "x"}}
			}),
			annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: "0"},
			labels:      map[string]string{"batch.kubernetes.io/controller-uid": "job-uid", "batch.kubernetes.io/job-name": "pi", batchv1.JobCompletionIndexAnnotation: "0"},
			env:         []corev1.EnvVar{{Name: "JOB_COMPLETION_INDEX", Value: "x"}}},
		{name: "per-index failures inherited", index: 1, replaced: failed, generateName: "pi-1-", hostname: "pi-1",
			job: testJob(5, 2, indexedJob, func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr[int32](3) }),
			annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: "1",
				batchv1.JobIndexFailureCountAnnotation: "2", batchv1.JobIndexIgnoredFailureCountAnnotation: "2"},
			labels: map[string]string{"batch.kubernetes.io/controller-uid": "job-uid", "batch.kubernetes.io/job-name": "pi", batchv1.JobCompletionIndexAnnotation: "1"},
			env:    []corev1.EnvVar{indexEnv}},
		{name: "per-index, first pod", index: 1, generateName: "pi-1-", hostname: "pi-1",
			job:         testJob(5, 2, indexedJob, func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr[int32](3) }),
			annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: "1", batchv1.JobIndexFailureCountAnnotation: "0"},
			labels:      map[string]string{"batch.kubernetes.io/controller-uid": "job-uid", "batch.kubernetes.io/job-name": "pi", batchv1.JobCompletionIndexAnnotation: "1"},
			env:         []corev1.EnvVar{indexEnv}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.job.DeepCopy()
			p := NewPod(tt.job, tt.index, tt.replaced)
			if p.GenerateName != tt.generateName || p.Name != "" || p.Namespace != "ns" || p.Spec.Hostname != tt.hostname {
				t.Errorf("generateName %q, name %q, namespace %q, hostname %q", p.GenerateName, p.Name, p.Namespace, p.Spec.Hostname)
			}
			if !maps.Equal(p.Annotations, tt.annotations) || !maps.Equal(p.Labels, tt.labels) {
				t.Errorf("annotations %v labels %v; want %v %v", p.Annotations, p.Labels, tt.annotations, tt.labels)
			}
			if got := p.Spec.Containers[0].Env; len(got) != len(tt.env) || (len(got) > 0 && got[0].String() != tt.env[0].String()) {
				t.Errorf("env %v, want %v", got, tt.env)
			}
			if !slices.Equal(p.Finalizers, []string{batchv1.JobTrackingFinalizer}) {
				t.Errorf("finalizers %v", p.Finalizers)
			}
			ref := metav1.GetControllerOf(p)
			if ref == nil || ref.Kind != "Job" || ref.APIVersion != "batch/v1" || ref.Name != "pi" || ref.UID != "job-uid" || !*ref.BlockOwnerDeletion {
				t.Errorf("controller reference %+v", ref)
			}
			if !equality.Semantic.DeepEqual(tt.job, before) {
				t.Error("the Job changed")
			}
		})
	}
	long := testJob(5, 2, indexedJob)
	long.Name = strings.Repeat("j", 63)
	if got := NewPod(long, 12, nil).GenerateName; got != strings.Repeat("j", 54)+"-12-" {
		t.Errorf("long name: generateName %q", got)
	}
}

func TestClaim(t *testing.T) {
	owned := func(uid string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "x", UID: types.UID(uid), Controller: ptr(true)}}
		}
	}
	other := func(p *corev1.Pod) { p.Labels = map[string]string{"app": "other"} }
	pods := []*corev1.Pod{
		testPod("mine", corev1.PodRunning, owned("job-uid")),
		testPod("mine-done", corev1.PodSucceeded, owned("job-uid")),
		testPod("mine-unmatched", corev1.PodRunning, owned("job-uid"), other),
		testPod("theirs", corev1.PodRunning, owned("other")),
		testPod("orphan", corev1.PodFailed),
		testPod("orphan-deleting", corev1.PodRunning, deleting),
		testPod("orphan-unmatched", corev1.PodRunning, other),
	}
	sel := labels.SelectorFromSet(labels.Set{"batch.kubernetes.io/controller-uid": "job-uid"})
	tests := []struct {
		name                   string
		deleting               bool
		owned, adopt, released []string
	}{
		{name: "live", owned: []string{"mine", "mine-done", "orphan"}, adopt: []string{"orphan"}, released: []string{"mine-unmatched"}},
		{name: "being deleted", deleting: true, owned: []string{"mine", "mine-done"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := testJob(1, 1)
			if tt.deleting {
				job.DeletionTimestamp = ptr(metav1.NewTime(t0))
			}
			c := ownership.Claim(job, sel, pods)
			if got := names(c.Owned); !slices.Equal(got, tt.owned) {
				t.Errorf("owned %v, want %v", got, tt.owned)
			}
			if got := names(c.Adopt); !slices.Equal(got, append([]string{}, tt.adopt...)) {
				t.Errorf("adopt %v, want %v", got, tt.adopt)
			}
			if got := names(c.Release); !slices.Equal(got, append([]string{}, tt.released...)) {
				t.Errorf("release %v, want %v", got, tt.released)
			}
		})
	}
}

func TestExpectations(t *testing.T) {
	key := testKey
	created := testPod("new", corev1.PodPending)
	doomed := testPod("doomed", corev1.PodRunning)
	released := testPod("released", corev1.PodSucceeded)
	tests := []struct {
		name          string
		cache         []*corev1.Pod
		now           time.Time
		wantSatisfied bool
		wantRemoving  []string
	}{
		{name: "nothing seen yet", cache: []*corev1.Pod{doomed, released}, now: t0, wantRemoving: []string{"released-uid"}},
		{name: "create seen, delete not", cache: []*corev1.Pod{created, doomed, released}, now: t0, wantRemoving: []string{"released-uid"}},
		{name: "all seen", cache: []*corev1.Pod{created, testPod("doomed", corev1.PodRunning, deleting), testPod("released", corev1.PodSucceeded, untracked)}, now: t0, wantSatisfied: true},
		{name: "timed out", cache: []*corev1.Pod{doomed, released}, now: t0.Add(expectationsTimeout), wantSatisfied: true, wantRemoving: []string{"released-uid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &expectations{}
			e.created(key, "new", t0)
			e.deleting(key, doomed, t0)
			e.removingFinalizer(key, released)
			satisfied, removing := e.observe(key, tt.cache, tt.now)
			var got []string
			for uid := range removing {
				got = append(got, string(uid))
			}
			if satisfied != tt.wantSatisfied || !slices.Equal(got, tt.wantRemoving) {
				t.Errorf("satisfied %v, removing %v; want %v, %v", satisfied, got, tt.wantSatisfied, tt.wantRemoving)
			}
		})
	}
	e := &expectations{}
	e.deleting(key, doomed, t0)
	e.undoDelete(key, doomed.UID)
	if ok, _ := e.observe(key, []*corev1.Pod{doomed}, t0); !ok {
		t.Error("a failed delete still expected")
	}
}
