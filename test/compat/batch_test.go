package compat_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

func busyboxTemplate(restart corev1.RestartPolicy) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: restart,
		Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
	}}
}

// TestBatch creates a Job and a CronJob through client-go, over JSON
// and protobuf, and reads back what kube-apiserver v1.33 serves for the
// same requests (recorded from it by hand): the defaults, the generated
// selector and labels, an empty status, and kube's 422s.
func TestBatch(t *testing.T) {
	srv := apiservertest.Start(t)
	for _, contentType := range []string{"application/json", protobufContentType} {
		t.Run(contentType, func(t *testing.T) {
			cfg := *srv.Config
			cfg.ContentType = contentType
			cs, err := kubernetes.NewForConfig(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			ns := createNamespace(t, cs, "batch-"+map[string]string{"application/json": "json", protobufContentType: "protobuf"}[contentType])

			job, err := cs.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "pi"},
				Spec:       batchv1.JobSpec{Template: busyboxTemplate(corev1.RestartPolicyNever)},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create Job: %v", err)
			}
			uid := string(job.UID)
			wantLabels := map[string]string{
				"batch.kubernetes.io/controller-uid": uid, "controller-uid": uid,
				"batch.kubernetes.io/job-name": "pi", "job-name": "pi",
			}
			for _, c := range []struct {
				name      string
				got, want any
			}{
				{"generation", job.Generation, int64(1)},
				{"completions", job.Spec.Completions, ptr.To[int32](1)},
				{"parallelism", job.Spec.Parallelism, ptr.To[int32](1)},
				{"backoffLimit", job.Spec.BackoffLimit, ptr.To[int32](6)},
				{"completionMode", job.Spec.CompletionMode, ptr.To(batchv1.NonIndexedCompletion)},
				{"suspend", job.Spec.Suspend, ptr.To(false)},
				{"manualSelector", job.Spec.ManualSelector, ptr.To(false)},
				{"podReplacementPolicy", job.Spec.PodReplacementPolicy, ptr.To(batchv1.TerminatingOrFailed)},
				{"selector", job.Spec.Selector, &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": uid}}},
				{"template labels", job.Spec.Template.Labels, wantLabels},
				{"labels", job.Labels, wantLabels},
				{"template dnsPolicy", job.Spec.Template.Spec.DNSPolicy, corev1.DNSClusterFirst},
				{"template terminationGracePeriodSeconds", job.Spec.Template.Spec.TerminationGracePeriodSeconds, ptr.To[int64](30)},
				{"status", job.Status, batchv1.JobStatus{}},
			} {
				if !equality.Semantic.DeepEqual(c.got, c.want) {
					t.Errorf("Job %s = %+v, want %+v", c.name, c.got, c.want)
				}
			}

			// The generated labels select the Job.
			list, err := cs.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=pi", FieldSelector: "status.successful=0"})
			if err != nil || len(list.Items) != 1 {
				t.Errorf("list by job-name and status.successful: %v items, %v; want the Job", len(list.Items), err)
			}

			// Status: the Job controller's write keeps the spec.
			job.Status.StartTime = ptr.To(metav1.Now())
			job.Status.Active = 1
			job.Spec.Parallelism = ptr.To[int32](5)
			st, err := cs.BatchV1().Jobs(ns).UpdateStatus(ctx, job, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("UpdateStatus: %v", err)
			}
			if st.Status.Active != 1 || *st.Spec.Parallelism != 1 || st.Generation != 1 {
				t.Errorf("after UpdateStatus: active %d parallelism %d generation %d, want 1 1 1", st.Status.Active, *st.Spec.Parallelism, st.Generation)
			}
			// A spec change bumps the generation and keeps the status.
			st.Spec.Parallelism = ptr.To[int32](2)
			st.Status = batchv1.JobStatus{}
			up, err := cs.BatchV1().Jobs(ns).Update(ctx, st, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if up.Generation != 2 || up.Status.Active != 1 {
				t.Errorf("after Update: generation %d active %d, want 2 1", up.Generation, up.Status.Active)
			}
			// The selector may not change.
			up.Spec.Selector.MatchLabels["x"] = "y"
			_, err = cs.BatchV1().Jobs(ns).Update(ctx, up, metav1.UpdateOptions{})
			expectInvalid(t, err, "Job", "pi", "spec.selector", "field is immutable")

			_, err = cs.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "always"},
				Spec:       batchv1.JobSpec{Template: busyboxTemplate(corev1.RestartPolicyAlways)},
			}, metav1.CreateOptions{})
			expectInvalid(t, err, "Job", "always", "spec.template.spec.restartPolicy", `Required value: valid values: "OnFailure", "Never"`)

			cj, err := cs.BatchV1().CronJobs(ns).Create(ctx, &batchv1.CronJob{
				ObjectMeta: metav1.ObjectMeta{Name: "hello"},
				Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", JobTemplate: batchv1.JobTemplateSpec{
					Spec: batchv1.JobSpec{Template: busyboxTemplate(corev1.RestartPolicyOnFailure)}}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create CronJob: %v", err)
			}
			for _, c := range []struct {
				name      string
				got, want any
			}{
				{"generation", cj.Generation, int64(1)},
				{"concurrencyPolicy", cj.Spec.ConcurrencyPolicy, batchv1.AllowConcurrent},
				{"suspend", cj.Spec.Suspend, ptr.To(false)},
				{"successfulJobsHistoryLimit", cj.Spec.SuccessfulJobsHistoryLimit, ptr.To[int32](3)},
				{"failedJobsHistoryLimit", cj.Spec.FailedJobsHistoryLimit, ptr.To[int32](1)},
				{"jobTemplate backoffLimit", cj.Spec.JobTemplate.Spec.BackoffLimit, (*int32)(nil)},
				{"jobTemplate imagePullPolicy", cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].ImagePullPolicy, corev1.PullAlways},
				{"status", cj.Status, batchv1.CronJobStatus{}},
			} {
				if !equality.Semantic.DeepEqual(c.got, c.want) {
					t.Errorf("CronJob %s = %+v, want %+v", c.name, c.got, c.want)
				}
			}

			_, err = cs.BatchV1().CronJobs(ns).Create(ctx, &batchv1.CronJob{
				ObjectMeta: metav1.ObjectMeta{Name: "bad"},
				Spec: batchv1.CronJobSpec{Schedule: "x", JobTemplate: batchv1.JobTemplateSpec{
					Spec: batchv1.JobSpec{Template: busyboxTemplate(corev1.RestartPolicyOnFailure)}}},
			}, metav1.CreateOptions{})
			expectInvalid(t, err, "CronJob", "bad", "spec.schedule", `Invalid value: "x": expected exactly 5 fields, found 1: [x]`)

			// kube orphans a batch/v1 Job's pods when a delete says
			// nothing of them: the Job waits for the garbage collector.
			if err := cs.BatchV1().Jobs(ns).Delete(ctx, "pi", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete Job: %v", err)
			}
			gone, err := cs.BatchV1().Jobs(ns).Get(ctx, "pi", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get deleted Job: %v", err)
			}
			if gone.DeletionTimestamp == nil || !slices.Contains(gone.Finalizers, metav1.FinalizerOrphanDependents) {
				t.Errorf("deleted Job: deletionTimestamp %v finalizers %v, want set and %s", gone.DeletionTimestamp, gone.Finalizers, metav1.FinalizerOrphanDependents)
			}
		})
	}
}

// expectInvalid checks a 422 naming the object and a cause at field
// whose message ends in message (after the value shown).
func expectInvalid(t *testing.T, err error, kind, name, field, message string) {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != 422 {
		t.Fatalf("%s %q: error %v, want a 422", kind, name, err)
	}
	d := se.ErrStatus.Details
	if d == nil || d.Kind != kind || d.Name != name {
		t.Fatalf("%s %q: details %+v", kind, name, d)
	}
	for _, c := range d.Causes {
		if c.Field == field && strings.HasSuffix(c.Message, message) {
			return
		}
	}
	t.Errorf("%s %q: causes %+v, want %s: %s", kind, name, d.Causes, field, message)
}
