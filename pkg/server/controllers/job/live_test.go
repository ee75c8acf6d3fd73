package job_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodeagent"
)

// newJob is a Job whose pods' containers exit with code after the
// given time.
func newJob(name string, completions, parallelism int32, exitAfter string, code int) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: batchv1.JobSpec{
			Completions: &completions, Parallelism: &parallelism,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
					nodeagent.AnnotationExitAfter: exitAfter, nodeagent.AnnotationExitCode: fmt.Sprint(code),
				}},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
}

// start starts a server with the built-in controllers and one
// simulated node for the pods to run on.
func start(t *testing.T) *client.Client {
	t.Helper()
	c := envtest.Start(t).Client()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim-job-node", Labels: map[string]string{nodeagent.LabelSimulated: "true"}}}
	if err := c.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	return c
}

func getJob(ctx context.Context, c *client.Client, job *batchv1.Job) (*batchv1.Job, error) {
	got := &batchv1.Job{}
	return got, c.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: job.Name}, got)
}

// podsOf are the pods job controls.
func podsOf(ctx context.Context, c *client.Client, job *batchv1.Job) ([]corev1.Pod, error) {
	list := &corev1.PodList{}
	if err := c.List(ctx, list, client.InNamespace(job.Namespace)); err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == job.UID {
			out = append(out, p)
		}
	}
	return out, nil
}

// conditionOf is job's condition of type t, or nil.
func conditionOf(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if job.Status.Conditions[i].Type == t {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

// waitCondition waits for job's condition t to be True with reason.
func waitCondition(t *testing.T, c *client.Client, job *batchv1.Job, ct batchv1.JobConditionType, reason string, opts ...envtest.WaitOption) *batchv1.Job {
	t.Helper()
	var got *batchv1.Job
	envtest.Eventually(t, fmt.Sprintf("job %s %s (%s)", job.Name, ct, reason), func() error {
		var err error
		if got, err = getJob(context.Background(), c, job); err != nil {
			return err
		}
		if cond := conditionOf(got, ct); cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != reason {
			return fmt.Errorf("conditions %+v, status active %d succeeded %d failed %d", got.Status.Conditions, got.Status.Active, got.Status.Succeeded, got.Status.Failed)
		}
		return nil
	}, opts...)
	return got
}

// eventReasons are the reasons of the Events on job, in order.
func eventReasons(ctx context.Context, c *client.Client, job *batchv1.Job) ([]string, error) {
	list := &corev1.EventList{}
	if err := c.List(ctx, list, client.InNamespace(job.Namespace)); err != nil {
		return nil, err
	}
	slices.SortStableFunc(list.Items, func(a, b corev1.Event) int { return a.FirstTimestamp.Compare(b.FirstTimestamp.Time) })
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.UID == job.UID && e.Source.Component == "job-controller" {
			out = append(out, e.Reason)
		}
	}
	return out, nil
}

// TestLiveCompletions: a Job of 5 completions, 2 at a time, whose pods
// exit 0 after a second, ends Complete with 5 succeeded pods, never more
// than 2 active, no pod more than needed, every finalizer released.
func TestLiveCompletions(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("five", 5, 2, "1s", 0)
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	maxActive, maxStatusActive := 0, int32(0)
	envtest.Eventually(t, "the job complete", func() error {
		pods, err := podsOf(ctx, c, job)
		if err != nil {
			return err
		}
		n := 0
		for _, p := range pods {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil {
				n++
			}
		}
		maxActive = max(maxActive, n)
		got, err := getJob(ctx, c, job)
		if err != nil {
			return err
		}
		maxStatusActive = max(maxStatusActive, got.Status.Active)
		if cond := conditionOf(got, batchv1.JobComplete); cond == nil || cond.Status != corev1.ConditionTrue {
			return fmt.Errorf("active %d succeeded %d, conditions %+v", got.Status.Active, got.Status.Succeeded, got.Status.Conditions)
		}
		return nil
	}, envtest.Within(90*time.Second), envtest.Every(50*time.Millisecond))
	if maxActive > 2 || maxStatusActive > 2 {
		t.Errorf("up to %d pods active (status up to %d), want at most 2", maxActive, maxStatusActive)
	}
	got, err := getJob(ctx, c, job)
	if err != nil {
		t.Fatal(err)
	}
	st := got.Status
	if st.Succeeded != 5 || st.Failed != 0 || st.Active != 0 || st.CompletionTime == nil || st.StartTime == nil ||
		st.Ready == nil || *st.Ready != 0 || st.Terminating == nil || *st.Terminating != 0 {
		t.Errorf("status = %+v", st)
	}
	if u := st.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		t.Errorf("uncounted pods left: %+v", u)
	}
	var types []batchv1.JobConditionType
	for _, c := range st.Conditions {
		types = append(types, c.Type)
	}
	if want := []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete}; !slices.Equal(types, want) {
		t.Errorf("conditions %v, want %v", types, want)
	}
	if c := conditionOf(got, batchv1.JobComplete); c.Reason != batchv1.JobReasonCompletionsReached || c.Message != "Reached expected number of succeeded pods" {
		t.Errorf("Complete condition = %+v", c)
	}
	envtest.Eventually(t, "every pod released", func() error {
		pods, err := podsOf(ctx, c, job)
		if err != nil {
			return err
		}
		if len(pods) != 5 {
			return fmt.Errorf("%d pods, want 5", len(pods))
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodSucceeded || slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
				return fmt.Errorf("pod %s: phase %s, finalizers %v", p.Name, p.Status.Phase, p.Finalizers)
			}
		}
		return nil
	})
	envtest.Eventually(t, "events", func() error {
		reasons, err := eventReasons(ctx, c, job)
		if err != nil {
			return err
		}
		created := 0
		for _, r := range reasons {
			if r == "SuccessfulCreate" {
				created++
			}
		}
		if created != 5 || !slices.Contains(reasons, "Completed") {
			return fmt.Errorf("reasons %v, want 5 SuccessfulCreate and Completed", reasons)
		}
		return nil
	})
}

// TestLiveBackoffLimit: pods exiting 1 under backoffLimit 1 fail the Job
// after the second failure (the replacement waits out a 10 s back-off),
// by way of FailureTarget.
func TestLiveBackoffLimit(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("failing", 1, 1, "0s", 1)
	limit := int32(1)
	job.Spec.BackoffLimit = &limit
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	got := waitCondition(t, c, job, batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded, envtest.Within(90*time.Second))
	if got.Status.Failed != 2 || got.Status.Succeeded != 0 || got.Status.Active != 0 || got.Status.CompletionTime != nil {
		t.Errorf("status = %+v", got.Status)
	}
	if c := conditionOf(got, batchv1.JobFailureTarget); c == nil || c.Reason != batchv1.JobReasonBackoffLimitExceeded ||
		c.Message != "Job has reached the specified backoff limit" {
		t.Errorf("FailureTarget = %+v", c)
	}
	pods, err := podsOf(ctx, c, job)
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 2 {
		t.Fatalf("%d pods, want 2", len(pods))
	}
	first, second := pods[0], pods[1]
	if second.CreationTimestamp.Before(&first.CreationTimestamp) {
		first, second = second, first
	}
	if gap := second.CreationTimestamp.Sub(first.CreationTimestamp.Time); gap < 9*time.Second {
		t.Errorf("replacement created %v after the first pod, want the 10 s back-off", gap)
	}
	envtest.Eventually(t, "BackoffLimitExceeded event", func() error {
		reasons, err := eventReasons(ctx, c, job)
		if err != nil {
			return err
		}
		if !slices.Contains(reasons, "BackoffLimitExceeded") {
			return fmt.Errorf("reasons %v", reasons)
		}
		return nil
	})
}

// TestLiveIndexed: an Indexed Job of 3 completes with completedIndexes
// 0-2, one pod per index with its index, hostname and variable.
func TestLiveIndexed(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("indexed", 3, 3, "1s", 0)
	mode := batchv1.IndexedCompletion
	job.Spec.CompletionMode = &mode
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	got := waitCondition(t, c, job, batchv1.JobComplete, batchv1.JobReasonCompletionsReached, envtest.Within(60*time.Second))
	if got.Status.CompletedIndexes != "0-2" || got.Status.Succeeded != 3 {
		t.Errorf("completedIndexes %q, succeeded %d", got.Status.CompletedIndexes, got.Status.Succeeded)
	}
	pods, err := podsOf(ctx, c, job)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, p := range pods {
		ix := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		seen = append(seen, ix)
		if p.Labels[batchv1.JobCompletionIndexAnnotation] != ix || p.Spec.Hostname != "indexed-"+ix || p.GenerateName != "indexed-"+ix+"-" {
			t.Errorf("pod %s: labels %v, hostname %q, generateName %q", p.Name, p.Labels, p.Spec.Hostname, p.GenerateName)
		}
		env := p.Spec.Containers[0].Env
		if len(env) != 1 || env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom == nil || env[0].ValueFrom.FieldRef == nil ||
			env[0].ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("pod %s env = %+v", p.Name, env)
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []string{"0", "1", "2"}) {
		t.Errorf("pod indexes %v, want 0, 1, 2", seen)
	}
}

// TestLiveSuspend: a Job created suspended has no pods and no start
// time; resumed, it runs to completion. A running Job suspended loses
// its pods.
func TestLiveSuspend(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("later", 2, 2, "1s", 0)
	yes := true
	job.Spec.Suspend = &yes
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	got := waitCondition(t, c, job, batchv1.JobSuspended, "JobSuspended")
	if got.Status.StartTime != nil {
		t.Errorf("suspended job has a start time: %v", got.Status.StartTime)
	}
	if pods, err := podsOf(ctx, c, job); err != nil || len(pods) != 0 {
		t.Errorf("suspended job has %d pods (err %v)", len(pods), err)
	}
	patch := func(j *batchv1.Job, suspend bool) {
		t.Helper()
		data := fmt.Appendf(nil, `{"spec":{"suspend":%t}}`, suspend)
		if err := c.Patch(ctx, j, types.MergePatchType, data); err != nil {
			t.Fatal(err)
		}
	}
	patch(got, false)
	got = waitCondition(t, c, job, batchv1.JobComplete, batchv1.JobReasonCompletionsReached, envtest.Within(60*time.Second))
	if s := conditionOf(got, batchv1.JobSuspended); s == nil || s.Status != corev1.ConditionFalse || s.Reason != "JobResumed" || s.Message != "Job resumed" {
		t.Errorf("Suspended condition after resume = %+v", s)
	}
	if got.Status.StartTime == nil {
		t.Error("resumed job has no start time")
	}

	long := newJob("long", 2, 2, "1h", 0)
	if err := c.Create(ctx, long); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "two pods active", func() error {
		j, err := getJob(ctx, c, long)
		if err != nil {
			return err
		}
		if j.Status.Active != 2 {
			return fmt.Errorf("active %d", j.Status.Active)
		}
		return nil
	})
	patch(long, true)
	waitCondition(t, c, long, batchv1.JobSuspended, "JobSuspended", envtest.Within(60*time.Second))
	envtest.Eventually(t, "the suspended job's pods gone", func() error {
		pods, err := podsOf(ctx, c, long)
		if err != nil {
			return err
		}
		j, err := getJob(ctx, c, long)
		if err != nil {
			return err
		}
		if len(pods) != 0 || j.Status.Active != 0 || j.Status.Failed != 0 {
			return fmt.Errorf("%d pods, active %d, failed %d", len(pods), j.Status.Active, j.Status.Failed)
		}
		return nil
	}, envtest.Within(60*time.Second))
	envtest.Eventually(t, "Suspended and Resumed events", func() error {
		reasons, err := eventReasons(ctx, c, long)
		if err != nil {
			return err
		}
		if !slices.Contains(reasons, "Suspended") || !slices.Contains(reasons, "SuccessfulDelete") {
			return fmt.Errorf("reasons %v", reasons)
		}
		return nil
	})
}

// TestLiveDeadline: activeDeadlineSeconds fails a Job whose pods run
// longer, and its pods are deleted.
func TestLiveDeadline(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("slow", 1, 1, "1h", 0)
	deadline := int64(2)
	job.Spec.ActiveDeadlineSeconds = &deadline
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	got := waitCondition(t, c, job, batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded, envtest.Within(60*time.Second))
	if c := conditionOf(got, batchv1.JobFailed); c.Message != "Job was active longer than specified deadline" {
		t.Errorf("Failed condition = %+v", c)
	}
	if got.Status.Active != 0 || got.Status.Failed != 1 {
		t.Errorf("status = %+v", got.Status)
	}
}

// TestLivePodFailurePolicy: an exit code a FailJob rule names fails the
// Job at once, with the rule's message, whatever the backoff limit.
func TestLivePodFailurePolicy(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("policy", 3, 1, "0s", 42)
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailJob,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	got := waitCondition(t, c, job, batchv1.JobFailed, batchv1.JobReasonPodFailurePolicy, envtest.Within(60*time.Second))
	pods, err := podsOf(ctx, c, job)
	if err != nil || len(pods) != 1 {
		t.Fatalf("%d pods (err %v), want 1", len(pods), err)
	}
	want := fmt.Sprintf("Container c for pod default/%s failed with exit code 42 matching FailJob rule at index 0", pods[0].Name)
	if c := conditionOf(got, batchv1.JobFailed); c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
}

// TestLiveTTL: ttlSecondsAfterFinished 0 deletes the Job as it finishes,
// and its pods with it.
func TestLiveTTL(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("brief", 1, 1, "0s", 0)
	zero := int32(0)
	job.Spec.TTLSecondsAfterFinished = &zero
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the finished job deleted with its pods", func() error {
		if _, err := getJob(ctx, c, job); !client.IsNotFound(err) {
			return fmt.Errorf("job still there (err %v)", err)
		}
		pods, err := podsOf(ctx, c, job)
		if err != nil {
			return err
		}
		if len(pods) != 0 {
			return fmt.Errorf("%d pods left", len(pods))
		}
		return nil
	}, envtest.Within(60*time.Second))
}

// TestLiveDeleteReleasesPods: a running Job deleted in the background
// leaves its pods to the garbage collector, and their tracking
// finalizer is released so they go too.
func TestLiveDeleteReleasesPods(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	job := newJob("doomed", 2, 2, "1h", 0)
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "two pods running", func() error {
		pods, err := podsOf(ctx, c, job)
		if err != nil {
			return err
		}
		running := 0
		for _, p := range pods {
			if p.Status.Phase == corev1.PodRunning && slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
				running++
			}
		}
		if running != 2 {
			return fmt.Errorf("%d of %d pods running and tracked", running, len(pods))
		}
		return nil
	})
	if err := c.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the pods gone", func() error {
		pods, err := podsOf(ctx, c, job)
		if err != nil {
			return err
		}
		if len(pods) != 0 {
			return fmt.Errorf("%d pods left, finalizers of the first %v", len(pods), pods[0].Finalizers)
		}
		return nil
	}, envtest.Within(60*time.Second))
}
