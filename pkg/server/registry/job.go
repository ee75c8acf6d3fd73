package registry

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// jobStrategy holds batch/v1 Jobs to kube-apiserver's rules: the Job
// and pod template defaults, a selector generated from the Job's uid
// unless the client manages it, and a spec that mostly cannot change
// once pods may have been made from it. The status is the Job
// controller's, written through the status subresource.
type jobStrategy struct{}

func (jobStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var job batchv1.Job
	if errs := toTyped(obj, &job); len(errs) > 0 {
		return errs
	}
	defaultJob(&job)
	dropNewerJobFields(&job.Spec)
	if !*job.Spec.ManualSelector {
		generateJobSelector(&job)
		defaultJobLabels(&job)
	}
	// A new Job has not run: the controller fills the status.
	job.Status = batchv1.JobStatus{}
	if errs := jobErrors(&job, jobOptions{prefixedLabels: true}); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &job)
}

func (jobStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var job, prev batchv1.Job
	if errs := append(toTyped(obj, &job), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	// Defaults apply on every decode, so an update that leaves a
	// defaulted field out compares equal to the stored Job.
	defaultJob(&job)
	dropNewerJobFields(&job.Spec)
	job.Status = prev.Status
	opts := jobUpdateOptions(&prev)
	errs := jobErrors(&job, opts)
	errs = append(errs, jobSpecUpdateErrors(&job.Spec, &prev.Spec, field.NewPath("spec"), opts)...)
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &job)
}

// PrepareForStatusUpdate keeps the spec and checks the status as kube
// does with the JobManagedBy feature on (the v1.33 default): counters
// do not go down, terminal conditions stay, and the conditions agree
// with each other and with the counts.
func (jobStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	var job, prev batchv1.Job
	if errs := append(toTyped(obj, &job), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	return jobStatusUpdateErrors(&job, &prev)
}

// The labels a generated selector puts on the pod template. The
// unprefixed ones are kept for clients older than the prefixed ones.
const (
	jobNameLabel             = batchv1.JobNameLabel
	jobControllerUIDLabel    = batchv1.ControllerUidLabel
	legacyJobNameLabel       = "job-name"
	legacyControllerUIDLabel = "controller-uid"
)

// generateJobSelector is what kube's job strategy does on create when
// the client does not manage the selector: the template is labelled
// with the Job's name and uid (labels the client set are left, and
// validation refuses them if they disagree), and the selector matches
// the uid, which no other Job's pods carry.
func generateJobSelector(job *batchv1.Job) {
	labels := job.Spec.Template.Labels
	if labels == nil {
		labels = map[string]string{}
		job.Spec.Template.Labels = labels
	}
	for key, value := range map[string]string{
		legacyJobNameLabel: job.Name, jobNameLabel: job.Name,
		legacyControllerUIDLabel: string(job.UID), jobControllerUIDLabel: string(job.UID),
	} {
		if _, ok := labels[key]; !ok {
			labels[key] = value
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	if job.Spec.Selector.MatchLabels == nil {
		job.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := job.Spec.Selector.MatchLabels[jobControllerUIDLabel]; !ok {
		job.Spec.Selector.MatchLabels[jobControllerUIDLabel] = string(job.UID)
	}
}

// jobOptions are kube's JobValidationOptions that Setpoint's rules
// read.
type jobOptions struct {
	// prefixedLabels requires the batch.kubernetes.io labels of a
	// generated selector; Jobs stored before they existed lack them.
	prefixedLabels bool
	// invalidSelectorValues keeps a stored selector valid that older
	// label rules accepted.
	invalidSelectorValues bool
	// mutableScheduling lets a suspended Job that never started change
	// where its pods may run.
	mutableScheduling bool
}

func jobUpdateOptions(prev *batchv1.Job) jobOptions {
	_, hadName := prev.Spec.Template.Labels[jobNameLabel]
	_, hadUID := prev.Spec.Template.Labels[jobControllerUIDLabel]
	return jobOptions{
		prefixedLabels:        hadName && hadUID,
		invalidSelectorValues: metavalidation.LabelSelectorHasInvalidLabelValue(prev.Spec.Selector),
		mutableScheduling:     ptr.Deref(prev.Spec.Suspend, false) && prev.Status.StartTime == nil,
	}
}

// dropNewerJobFields clears what kube-apiserver v1.33 does not know of
// a Job spec: spec.scheduling came in a later version, behind a feature
// gate, and kube drops a disabled gate's fields. Nothing stored has it,
// so an update drops it too.
func dropNewerJobFields(spec *batchv1.JobSpec) {
	spec.Scheduling = nil
}
