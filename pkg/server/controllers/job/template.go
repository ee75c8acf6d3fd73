package job

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// completionIndexEnv is the variable an Indexed Job's containers read
// their index from.
const completionIndexEnv = "JOB_COMPLETION_INDEX"

// maxGeneratedNameLength is how long a generateName prefix may be: the
// server appends five random characters to a name of at most 63.
const maxGeneratedNameLength = 63 - 5

// NewPod is a pod of job from its template: the template's labels,
// annotations, finalizers and spec, job's controller reference, the
// tracking finalizer and a name the server generates from job's. A pod
// of an Indexed Job (index not noIndex) also carries its completion
// index (annotation, label, JOB_COMPLETION_INDEX in each container, the
// hostname <job>-<index>) and, under backoffLimitPerIndex, its index's
// failure counts inherited from replaced, the pod it replaces (or nil).
func NewPod(job *batchv1.Job, index int, replaced *corev1.Pod) *corev1.Pod {
	t := job.Spec.Template.DeepCopy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: job.Namespace, GenerateName: namePrefix(job.Name),
			Labels: maps.Clone(t.Labels), Annotations: maps.Clone(t.Annotations),
			Finalizers:      slices.Clone(t.Finalizers),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: t.Spec,
	}
	if !slices.Contains(pod.Finalizers, batchv1.JobTrackingFinalizer) {
		pod.Finalizers = append(pod.Finalizers, batchv1.JobTrackingFinalizer)
	}
	if !indexed(job) {
		return pod
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			addIndexEnv(&cs[i])
		}
	}
	if index == noIndex {
		return pod
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	ix := strconv.Itoa(index)
	pod.Annotations[batchv1.JobCompletionIndexAnnotation] = ix
	pod.Labels[batchv1.JobCompletionIndexAnnotation] = ix
	pod.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, index)
	pod.GenerateName = indexedPrefix(job.Name, index)
	if job.Spec.BackoffLimitPerIndex != nil {
		counted, ignored := inheritedFailures(job, replaced)
		pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(counted))
		if ignored > 0 {
			pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(ignored))
		}
	}
	return pod
}

// namePrefix is <job>- when that can prefix a generated name, else the
// Job's name, as kube's pod control chooses.
func namePrefix(job string) string {
	prefix := job + "-"
	if len(validation.NameIsDNSSubdomain(prefix, true)) != 0 {
		return job
	}
	return prefix
}

// indexedPrefix is <job>-<index>-, the job's name cut short so the
// index survives.
func indexedPrefix(job string, index int) string {
	suffix := "-" + strconv.Itoa(index) + "-"
	if len(job)+len(suffix) > maxGeneratedNameLength {
		job = job[:maxGeneratedNameLength-len(suffix)]
	}
	return job + suffix
}

// addIndexEnv gives c JOB_COMPLETION_INDEX from the pod's index label,
// unless c sets the variable itself.
func addIndexEnv(c *corev1.Container) {
	for _, e := range c.Env {
		if e.Name == completionIndexEnv {
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: completionIndexEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: fmt.Sprintf("metadata.labels['%s']", batchv1.JobCompletionIndexAnnotation)},
	}})
}

// inheritedFailures are the failure counts a replacement pod of an
// index carries: the replaced pod's, plus its own failure, counted or
// ignored as the pod failure policy says.
func inheritedFailures(job *batchv1.Job, replaced *corev1.Pod) (counted, ignored int32) {
	if replaced == nil {
		return 0, 0
	}
	counted, ignored = indexFailures(replaced), indexIgnoredFailures(replaced)
	if MatchFailurePolicy(job.Spec.PodFailurePolicy, replaced).Counts {
		counted++
	} else {
		ignored++
	}
	return counted, ignored
}

func indexFailures(pod *corev1.Pod) int32 {
	return annotationCount(pod, batchv1.JobIndexFailureCountAnnotation)
}

func indexIgnoredFailures(pod *corev1.Pod) int32 {
	return annotationCount(pod, batchv1.JobIndexIgnoredFailureCountAnnotation)
}

func annotationCount(pod *corev1.Pod, key string) int32 {
	n, err := strconv.ParseInt(pod.Annotations[key], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}
