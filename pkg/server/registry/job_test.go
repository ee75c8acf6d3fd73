package registry

import (
	"math"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

const testJobUID = "0b6d5c3e-1111-4a2b-9c3d-000000000001"

// newJob is a Job as the store hands it to the strategy on create
// (uid set), changed by mutate.
func newJob(mutate func(*batchv1.Job)) *batchv1.Job {
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: testJobUID},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "pi", Image: "perl:5.34"}},
		}}},
	}
	if mutate != nil {
		mutate(job)
	}
	return job
}

func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func fromMap[T any](t *testing.T, m map[string]any) *T {
	t.Helper()
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// createJob runs the strategy's create on job and returns the Job it
// would store.
func createJob(t *testing.T, job *batchv1.Job) (*batchv1.Job, field.ErrorList) {
	t.Helper()
	obj := toMap(t, job)
	errs := jobStrategy{}.PrepareForCreate(time.Time{}, obj)
	return fromMap[batchv1.Job](t, obj), errs
}

// errorLines are the errors as kubectl prints them, one a line.
func errorLines(errs field.ErrorList) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func TestJobDefaults(t *testing.T) {
	generated := map[string]string{
		"batch.kubernetes.io/controller-uid": testJobUID, "controller-uid": testJobUID,
		"batch.kubernetes.io/job-name": "pi", "job-name": "pi",
	}
	tests := []struct {
		name  string
		job   func(*batchv1.Job)
		check func(t *testing.T, got *batchv1.Job)
	}{
		{"a plain Job", nil, func(t *testing.T, got *batchv1.Job) {
			want := batchv1.JobSpec{
				Completions: ptr.To[int32](1), Parallelism: ptr.To[int32](1), BackoffLimit: ptr.To[int32](6),
				CompletionMode: ptr.To(batchv1.NonIndexedCompletion), Suspend: ptr.To(false), ManualSelector: ptr.To(false),
				PodReplacementPolicy: ptr.To(batchv1.TerminatingOrFailed),
				Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": testJobUID}},
			}
			got.Spec.Template = corev1.PodTemplateSpec{}
			if !equality.Semantic.DeepEqual(got.Spec, want) {
				t.Errorf("spec\n got %+v\nwant %+v", got.Spec, want)
			}
		}},
		{"generated labels, on the template and the Job", nil, func(t *testing.T, got *batchv1.Job) {
			if !equality.Semantic.DeepEqual(got.Spec.Template.Labels, generated) {
				t.Errorf("template labels %v, want %v", got.Spec.Template.Labels, generated)
			}
			if !equality.Semantic.DeepEqual(got.Labels, generated) {
				t.Errorf("Job labels %v, want %v", got.Labels, generated)
			}
		}},
		{"template labels kept and shared with an unlabelled Job", func(j *batchv1.Job) {
			j.Spec.Template.Labels = map[string]string{"app": "pi"}
		}, func(t *testing.T, got *batchv1.Job) {
			want := map[string]string{"app": "pi"}
			for k, v := range generated {
				want[k] = v
			}
			if !equality.Semantic.DeepEqual(got.Labels, want) || !equality.Semantic.DeepEqual(got.Spec.Template.Labels, want) {
				t.Errorf("labels %v and template labels %v, want %v", got.Labels, got.Spec.Template.Labels, want)
			}
		}},
		{"the Job's own labels stay", func(j *batchv1.Job) { j.Labels = map[string]string{"team": "a"} }, func(t *testing.T, got *batchv1.Job) {
			if want := map[string]string{"team": "a"}; !equality.Semantic.DeepEqual(got.Labels, want) {
				t.Errorf("labels %v, want %v", got.Labels, want)
			}
		}},
		{"only parallelism: completions stay unset", func(j *batchv1.Job) { j.Spec.Parallelism = ptr.To[int32](3) }, func(t *testing.T, got *batchv1.Job) {
			if got.Spec.Completions != nil || *got.Spec.Parallelism != 3 {
				t.Errorf("completions %v parallelism %v, want nil and 3", got.Spec.Completions, *got.Spec.Parallelism)
			}
		}},
		{"only completions: parallelism 1", func(j *batchv1.Job) { j.Spec.Completions = ptr.To[int32](5) }, func(t *testing.T, got *batchv1.Job) {
			if *got.Spec.Completions != 5 || *got.Spec.Parallelism != 1 {
				t.Errorf("completions %v parallelism %v, want 5 and 1", *got.Spec.Completions, *got.Spec.Parallelism)
			}
		}},
		{"a limit per index lifts the Job's limit", func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions = ptr.To[int32](3)
			j.Spec.BackoffLimitPerIndex = ptr.To[int32](1)
		}, func(t *testing.T, got *batchv1.Job) {
			if *got.Spec.BackoffLimit != math.MaxInt32 {
				t.Errorf("backoffLimit %d, want %d", *got.Spec.BackoffLimit, math.MaxInt32)
			}
		}},
		{"a pod failure policy: replace failed pods only, conditions True", func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}},
			}}}
		}, func(t *testing.T, got *batchv1.Job) {
			if *got.Spec.PodReplacementPolicy != batchv1.Failed {
				t.Errorf("podReplacementPolicy %s, want Failed", *got.Spec.PodReplacementPolicy)
			}
			if s := got.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status; s != corev1.ConditionTrue {
				t.Errorf("onPodConditions status %q, want True", s)
			}
		}},
		{"the pod template's defaults", nil, func(t *testing.T, got *batchv1.Job) {
			spec := got.Spec.Template.Spec
			if spec.DNSPolicy != corev1.DNSClusterFirst || spec.SchedulerName != corev1.DefaultSchedulerName || ptr.Deref(spec.TerminationGracePeriodSeconds, 0) != 30 ||
				spec.Containers[0].TerminationMessagePath != corev1.TerminationMessagePathDefault || spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
				t.Errorf("pod template spec not defaulted: %+v", spec)
			}
		}},
		{"a manual selector generates nothing", func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptr.To(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
			j.Spec.Template.Labels = map[string]string{"app": "pi"}
		}, func(t *testing.T, got *batchv1.Job) {
			if want := map[string]string{"app": "pi"}; !equality.Semantic.DeepEqual(got.Spec.Template.Labels, want) ||
				!equality.Semantic.DeepEqual(got.Spec.Selector.MatchLabels, want) {
				t.Errorf("template labels %v selector %v, want both %v", got.Spec.Template.Labels, got.Spec.Selector.MatchLabels, want)
			}
		}},
		{"a client status is dropped", func(j *batchv1.Job) { j.Status.Succeeded = 3 }, func(t *testing.T, got *batchv1.Job) {
			if !equality.Semantic.DeepEqual(got.Status, batchv1.JobStatus{}) {
				t.Errorf("status %+v, want empty", got.Status)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := createJob(t, newJob(tt.job))
			if len(errs) > 0 {
				t.Fatalf("errors:\n%s", errorLines(errs))
			}
			tt.check(t, got)
		})
	}
}

// TestJobValidation holds new Jobs to kube's rules, with the errors
// kube-apiserver v1.33 gives for them (checked against it).
func TestJobValidation(t *testing.T) {
	tests := []struct {
		name string
		job  func(*batchv1.Job)
		want string // the errors, one a line; "" when valid
	}{
		{"valid", nil, ""},
		{"restartPolicy unset defaults to Always", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" },
			`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		{"restartPolicy Always", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways },
			`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		{"OnFailure with a pod failure policy", func(j *batchv1.Job) {
			j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}},
			}}}
		}, `spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`},
		{"negative counts", func(j *batchv1.Job) {
			j.Spec.Parallelism, j.Spec.Completions, j.Spec.BackoffLimit = ptr.To[int32](-1), ptr.To[int32](-2), ptr.To[int32](-4)
			j.Spec.ActiveDeadlineSeconds, j.Spec.TTLSecondsAfterFinished = ptr.To[int64](-3), ptr.To[int32](-5)
		}, "spec.parallelism: Invalid value: -1: must be greater than or equal to 0\n" +
			"spec.completions: Invalid value: -2: must be greater than or equal to 0\n" +
			"spec.activeDeadlineSeconds: Invalid value: -3: must be greater than or equal to 0\n" +
			"spec.backoffLimit: Invalid value: -4: must be greater than or equal to 0\n" +
			"spec.ttlSecondsAfterFinished: Invalid value: -5: must be greater than or equal to 0"},
		{"zero parallelism and completions are valid", func(j *batchv1.Job) {
			j.Spec.Parallelism, j.Spec.Completions = ptr.To[int32](0), ptr.To[int32](0)
		}, ""},
		{"unknown completion mode", func(j *batchv1.Job) { j.Spec.CompletionMode = ptr.To(batchv1.CompletionMode("Sometimes")) },
			`spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"`},
		{"indexed without completions", func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Parallelism = ptr.To[int32](2)
		}, "spec.completions: Required value: when completion mode is Indexed"},
		{"indexed name too long for its pods", func(j *batchv1.Job) {
			j.Name = strings.Repeat("a", 61)
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions = ptr.To[int32](100)
		}, `metadata.name: Invalid value: "` + strings.Repeat("a", 61) + `": will not able to create pod with invalid DNS label: ` + strings.Repeat("a", 61) + "-99"},
		{"per-index limits need Indexed", func(j *batchv1.Job) {
			j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr.To[int32](1), ptr.To[int32](2)
		}, "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode\n" +
			"spec.maxFailedIndexes: Invalid value: 2: requires indexed completion mode"},
		{"maxFailedIndexes above completions, without a limit per index", func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions, j.Spec.MaxFailedIndexes = ptr.To[int32](2), ptr.To[int32](3)
		}, "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified\n" +
			"spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions"},
		{"pod failure policy rules", func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: "Bogus", OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{3, 0, 1, 1}, ContainerName: ptr.To("zz")}},
				{Action: batchv1.PodFailurePolicyActionFailJob, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: "bad type!", Status: "Maybe"}}},
				{Action: batchv1.PodFailurePolicyActionIgnore},
				{Action: batchv1.PodFailurePolicyActionFailIndex, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: "NotIn", Values: []int32{1}},
					OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}},
			}}
		}, `spec.podFailurePolicy.rules[0].action: Unsupported value: "Bogus": supported values: "Count", "FailIndex", "FailJob", "Ignore"` + "\n" +
			`spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "zz": must be one of the container or initContainer names in the pod template` + "\n" +
			"spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator\n" +
			"spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 1\n" +
			"spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{3, 0, 1, 1}: must be ordered\n" +
			`spec.podFailurePolicy.rules[1].onPodConditions[0].type: Invalid value: "bad type!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` + "\n" +
			`spec.podFailurePolicy.rules[1].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"` + "\n" +
			"spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required\n" +
			`spec.podFailurePolicy.rules[3].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set` + "\n" +
			"spec.podFailurePolicy.rules[3]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"},
		{"replacement policy with a pod failure policy", func(j *batchv1.Job) {
			j.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionCount, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}},
			}}}
		}, `spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`},
		{"success policy", func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions = ptr.To[int32](100)
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{
				{SucceededIndexes: ptr.To("0-2,1"), SucceededCount: ptr.To[int32](200)}, {},
			}}
		}, `spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-2,1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1` + "\n" +
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 200: must be less than or equal to 100 (the number of specified completions)\n" +
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 200: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)\n" +
			"spec.successPolicy.rules[1]: Required value: at least one of succeededCount or succeededIndexes must be specified"},
		{"a template label that disagrees with the generated one", func(j *batchv1.Job) {
			j.Spec.Template.Labels = map[string]string{"job-name": "other"}
		}, `spec.template.metadata.labels[job-name]: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"` + testJobUID +
			`", "batch.kubernetes.io/job-name":"pi", "controller-uid":"` + testJobUID + `", "job-name":"other"}: must be 'pi'`},
		{"a selector beside a generated one", func(j *batchv1.Job) {
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		}, `spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b", "batch.kubernetes.io/controller-uid":"` + testJobUID +
			`"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: ` + "`selector` not auto-generated\n" +
			`spec.template.metadata.labels: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"` + testJobUID +
			`", "batch.kubernetes.io/job-name":"pi", "controller-uid":"` + testJobUID + `", "job-name":"pi"}: ` + "`selector` does not match template `labels`"},
		{"a manual selector without one", func(j *batchv1.Job) { j.Spec.ManualSelector = ptr.To(true) },
			"spec.selector: Required value\nspec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`"},
		{"the pod template is validated", func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "" },
			"spec.template.spec.containers[0].image: Required value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := createJob(t, newJob(tt.job))
			if got := errorLines(errs); got != tt.want {
				t.Errorf("errors\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// storedJob is a Job as created, with a status, for update tests.
func storedJob(t *testing.T, mutate func(*batchv1.Job)) *batchv1.Job {
	t.Helper()
	job, errs := createJob(t, newJob(mutate))
	if len(errs) > 0 {
		t.Fatalf("create: %s", errorLines(errs))
	}
	job.Generation = 1
	return job
}

func TestJobUpdate(t *testing.T) {
	suspended := func(j *batchv1.Job) { j.Spec.Suspend = ptr.To(true) }
	indexed := func(j *batchv1.Job) {
		j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
		j.Spec.Completions, j.Spec.Parallelism = ptr.To[int32](3), ptr.To[int32](3)
	}
	tests := []struct {
		name   string
		stored func(*batchv1.Job)
		start  bool // the stored Job has started
		change func(*batchv1.Job)
		want   string
	}{
		{"parallelism, limits and suspend may change", nil, false, func(j *batchv1.Job) {
			j.Spec.Parallelism, j.Spec.BackoffLimit, j.Spec.Suspend = ptr.To[int32](4), ptr.To[int32](2), ptr.To(true)
			j.Spec.ActiveDeadlineSeconds, j.Spec.TTLSecondsAfterFinished = ptr.To[int64](60), ptr.To[int32](10)
		}, ""},
		{"completions", nil, false, func(j *batchv1.Job) { j.Spec.Completions = ptr.To[int32](3) },
			"spec.completions: Invalid value: 3: field is immutable"},
		{"completion mode", nil, false, func(j *batchv1.Job) { j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion) },
			`spec.completionMode: Invalid value: "Indexed": field is immutable`},
		{"the image", nil, false, func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "perl:5.36" },
			"spec.template: Invalid value: core.PodTemplateSpec{ObjectMeta:v1.ObjectMeta{"},
		{"the selector", nil, false, func(j *batchv1.Job) { j.Spec.Selector.MatchLabels["x"] = "y" },
			"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"},
		{"a pod failure policy", nil, false, func(j *batchv1.Job) {
			j.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionCount, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}},
			}}}
		}, "spec.podFailurePolicy: Invalid value: "},
		{"scheduling of a suspended Job that never ran", suspended, false, func(j *batchv1.Job) {
			j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
			j.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
			j.Spec.Template.Annotations = map[string]string{"a": "b"}
		}, ""},
		{"scheduling of a suspended Job that ran", suspended, true, func(j *batchv1.Job) {
			j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
		}, "spec.template: Invalid value: "},
		{"a suspended Job's image", suspended, false, func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "perl:5.36" },
			"spec.template: Invalid value: "},
		{"an Indexed Job scales completions with parallelism", indexed, false, func(j *batchv1.Job) {
			j.Spec.Completions, j.Spec.Parallelism = ptr.To[int32](5), ptr.To[int32](5)
		}, ""},
		{"an Indexed Job's completions alone", indexed, false, func(j *batchv1.Job) { j.Spec.Completions = ptr.To[int32](5) },
			"spec.completions: Invalid value: 5: can only be modified in tandem with spec.parallelism"},
		{"update rules of create apply too", nil, false, func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr.To[int32](-1) },
			"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := storedJob(t, tt.stored)
			if tt.start {
				old.Status.StartTime = &metav1.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
			}
			job := old.DeepCopy()
			tt.change(job)
			job.Status = batchv1.JobStatus{Succeeded: 9} // the spec write's status is dropped
			obj := toMap(t, job)
			errs := jobStrategy{}.PrepareForUpdate(time.Time{}, obj, toMap(t, old))
			got := errorLines(errs)
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Fatalf("errors\n got %s\nwant %s...", got, tt.want)
			}
			if got == "" {
				if st := fromMap[batchv1.Job](t, obj).Status; !equality.Semantic.DeepEqual(st, old.Status) {
					t.Errorf("status %+v, want the stored %+v", st, old.Status)
				}
			}
		})
	}
}

func TestJobStatusUpdate(t *testing.T) {
	start := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	end := metav1.NewTime(start.Add(time.Minute))
	cond := func(ts ...batchv1.JobConditionType) []batchv1.JobCondition {
		var out []batchv1.JobCondition
		for _, c := range ts {
			out = append(out, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue})
		}
		return out
	}
	running := batchv1.JobStatus{StartTime: &start, Active: 1, Ready: ptr.To[int32](1), Terminating: ptr.To[int32](0)}
	tests := []struct {
		name     string
		old, new batchv1.JobStatus
		want     string
	}{
		{"the controller starts the Job", batchv1.JobStatus{}, running, ""},
		{"and completes it", running, batchv1.JobStatus{StartTime: &start, CompletionTime: &end, Succeeded: 1, Ready: ptr.To[int32](0),
			Conditions: cond(batchv1.JobSuccessCriteriaMet, batchv1.JobComplete)}, ""},
		{"and fails it", running, batchv1.JobStatus{StartTime: &start, Failed: 7, Ready: ptr.To[int32](0),
			Conditions: cond(batchv1.JobFailureTarget, batchv1.JobFailed)}, ""},
		{"bad counts", running, batchv1.JobStatus{StartTime: &start, Succeeded: -1, Active: 2, Ready: ptr.To[int32](3),
			Conditions: cond(batchv1.JobFailed)},
			"status.succeeded: Invalid value: -1: must be greater than or equal to 0\n" +
				"status.conditions: Invalid value: cannot set Failed=True condition without the FailureTarget=true condition\n" +
				"status.active: Invalid value: 2: active>0 is invalid for finished job\n" +
				"status.ready: Invalid value: 3: cannot set more ready pods than active\n" +
				"status.succeeded: Invalid value: -1: cannot decrease the succeeded counter"},
		{"finished without a start", batchv1.JobStatus{}, batchv1.JobStatus{Conditions: cond(batchv1.JobFailureTarget, batchv1.JobFailed)},
			"status.startTime: Required value: startTime is required for finished job"},
		{"complete without success criteria or completion time", running, batchv1.JobStatus{StartTime: &start, Conditions: cond(batchv1.JobComplete)},
			"status.completionTime: Required value: completionTime is required for Complete jobs\n" +
				"status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition"},
		{"a terminal condition stays", batchv1.JobStatus{StartTime: &start, Conditions: cond(batchv1.JobFailureTarget, batchv1.JobFailed)},
			batchv1.JobStatus{StartTime: &start, Conditions: cond(batchv1.JobFailureTarget)},
			"status.conditions: Invalid value: cannot disable the terminal Failed=True condition"},
		{"the failed count does not go down", batchv1.JobStatus{StartTime: &start, Failed: 2}, batchv1.JobStatus{StartTime: &start, Failed: 1},
			"status.failed: Invalid value: 1: cannot decrease the failed counter"},
		{"the start time stays while running", running, batchv1.JobStatus{Active: 1},
			"status.startTime: Required value: startTime cannot be removed for unsuspended job"},
		{"completed indexes of a NonIndexed Job", running, batchv1.JobStatus{StartTime: &start, Active: 1, CompletedIndexes: "1"},
			`status.completedIndexes: Invalid value: "1": error parsing completedIndexes: too large index: "1"` + "\n" +
				`status.completedIndexes: Invalid value: "1": cannot set non-empty completedIndexes when non-indexed completion mode`},
		{"uncounted pods", running, batchv1.JobStatus{StartTime: &start, Active: 1,
			UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"a", ""}, Failed: []types.UID{"a"}}},
			`status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty` + "\n" +
				`status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := storedJob(t, nil)
			old.Status = tt.old
			job := old.DeepCopy()
			job.Status = tt.new
			job.Spec.BackoffLimit = ptr.To[int32](0) // the status write's spec is dropped
			obj := toMap(t, job)
			errs := jobStrategy{}.PrepareForStatusUpdate(obj, toMap(t, old))
			if got := errorLines(errs); got != tt.want {
				t.Errorf("errors\n got %s\nwant %s", got, tt.want)
			}
			if got := fromMap[batchv1.Job](t, obj).Spec.BackoffLimit; *got != 6 {
				t.Errorf("backoffLimit %d after a status write, want the stored 6", *got)
			}
		})
	}
}

// TestJobNewerFieldsDropped: spec.scheduling is not a v1.33 field.
func TestJobNewerFieldsDropped(t *testing.T) {
	got, errs := createJob(t, newJob(func(j *batchv1.Job) { j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{} }))
	if len(errs) > 0 {
		t.Fatal(errorLines(errs))
	}
	if got.Spec.Scheduling != nil {
		t.Errorf("spec.scheduling kept: %+v", got.Spec.Scheduling)
	}
}
