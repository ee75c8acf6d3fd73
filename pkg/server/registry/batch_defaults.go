package registry

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// defaultJob is kube's SetObjectDefaults_Job: the Job's own defaults
// (SetDefaults_Job, every feature gate of v1.33 on) and its pod
// template's.
func defaultJob(job *batchv1.Job) {
	spec := &job.Spec
	// Leaving both unset asks for one pod run to completion once.
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptr.To[int32](1)
	}
	if spec.Parallelism == nil {
		spec.Parallelism = ptr.To[int32](1)
	}
	if spec.BackoffLimit == nil {
		// With a limit per index, the job-wide limit is effectively off.
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = ptr.To[int32](math.MaxInt32)
		} else {
			spec.BackoffLimit = ptr.To[int32](6)
		}
	}
	defaultJobLabels(job)
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr.To(false)
	}
	if spec.PodFailurePolicy != nil {
		for _, rule := range spec.PodFailurePolicy.Rules {
			for i := range rule.OnPodConditions {
				if rule.OnPodConditions[i].Status == "" {
					rule.OnPodConditions[i].Status = corev1.ConditionTrue
				}
			}
		}
	}
	if spec.PodReplacementPolicy == nil {
		// A pod failure policy reads the failed pod's conditions, so
		// a replacement waits until the pod has failed.
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		} else {
			spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = ptr.To(false)
	}
	defaultPodSpec(&spec.Template.Spec)
}

// defaultJobLabels labels a Job without labels as its pods. The map is
// shared, as in kube: labels the strategy then generates on the
// template land on the Job too. kube also defaults on every decode, so
// a Job whose template had no labels is served with the generated
// ones; the strategy calls this again after generating them.
func defaultJobLabels(job *batchv1.Job) {
	if job.Spec.Template.Labels != nil && len(job.Labels) == 0 {
		job.Labels = job.Spec.Template.Labels
	}
}

// defaultCronJob is kube's SetObjectDefaults_CronJob. The job template
// gets its pod template's defaults only: the Job defaults apply when
// the controller creates a Job from it.
func defaultCronJob(cj *batchv1.CronJob) {
	spec := &cj.Spec
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr.To(false)
	}
	if spec.SuccessfulJobsHistoryLimit == nil {
		spec.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if spec.FailedJobsHistoryLimit == nil {
		spec.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
	defaultPodSpec(&spec.JobTemplate.Spec.Template.Spec)
}
