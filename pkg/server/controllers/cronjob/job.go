package cronjob

import (
	"maps"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// cronJobKind is the kind of the Jobs' controller reference.
var cronJobKind = batchv1.SchemeGroupVersion.WithKind("CronJob")

// JobFor is the Job to create for a scheduled time: the template's
// labels, annotations and spec, the CronJob as controller, and the
// scheduled time in the annotation batch.kubernetes.io/cronjob-scheduled-timestamp,
// written in the CronJob's time zone (UTC without one).
func JobFor(cj *batchv1.CronJob, scheduled time.Time) (*batchv1.Job, error) {
	loc, err := time.LoadLocation(ptr.Deref(cj.Spec.TimeZone, ""))
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(cj.Spec.JobTemplate.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	annotations := maps.Clone(cj.Spec.JobTemplate.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[batchv1.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:        JobName(cj, scheduled),
			Namespace:   cj.Namespace,
			Labels:      labels,
			Annotations: annotations,
			// The server sets its own; kube sends the scheduled time.
			CreationTimestamp: metav1.Time{Time: scheduled},
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(cj, cronJobKind)},
		},
	}
	cj.Spec.JobTemplate.Spec.DeepCopyInto(&job.Spec)
	return job, nil
}

// Finished reports whether a Job has ended, and how: its first True
// Complete or Failed condition.
func Finished(j *batchv1.Job) (bool, batchv1.JobConditionType) {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

// Succeeded reports whether a Job is Complete.
func Succeeded(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// reference is status.active's entry for a Job.
func reference(j *batchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{
		Kind:            "Job",
		APIVersion:      batchv1.SchemeGroupVersion.String(),
		Namespace:       j.Namespace,
		Name:            j.Name,
		UID:             j.UID,
		ResourceVersion: j.ResourceVersion,
	}
}

func inActive(cj *batchv1.CronJob, uid types.UID) bool {
	for _, r := range cj.Status.Active {
		if r.UID == uid {
			return true
		}
	}
	return false
}

func inActiveByName(cj *batchv1.CronJob, namespace, name string) bool {
	for _, r := range cj.Status.Active {
		if r.Name == name && r.Namespace == namespace {
			return true
		}
	}
	return false
}

// dropActive removes a Job from status.active. It makes a new slice:
// callers may be ranging over the old one.
func dropActive(cj *batchv1.CronJob, uid types.UID) {
	kept := []corev1.ObjectReference{}
	for _, r := range cj.Status.Active {
		if r.UID != uid {
			kept = append(kept, r)
		}
	}
	cj.Status.Active = kept
}
