package job

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Claims is how a Job's selector and controller references divide the
// pods of its namespace.
type Claims struct {
	// Owned are the pods the Job controls and still selects, and the
	// orphans it adopts (also in Adopt).
	Owned []*corev1.Pod
	// Adopt are orphans it selects: they get its controller reference
	// and the tracking finalizer.
	Adopt []*corev1.Pod
	// Release are pods it controls but no longer selects.
	Release []*corev1.Pod
}

// Claim divides pods, in every phase, as kube's controller reference
// manager does for Jobs: a pod another object controls is left alone;
// one the Job controls is kept while the selector matches it and
// released otherwise; an orphan it matches is adopted. A Job being
// deleted adopts and releases nothing, and a pod being deleted is never
// adopted.
func Claim(job *batchv1.Job, sel labels.Selector, pods []*corev1.Pod) Claims {
	var c Claims
	deleting := job.DeletionTimestamp != nil
	for _, p := range pods {
		matches := sel.Matches(labels.Set(p.Labels))
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			switch {
			case ref.UID != job.UID:
			case matches:
				c.Owned = append(c.Owned, p)
			case !deleting:
				c.Release = append(c.Release, p)
			}
			continue
		}
		if deleting || !matches || p.DeletionTimestamp != nil || p.Namespace != job.Namespace {
			continue
		}
		c.Adopt = append(c.Adopt, p)
		c.Owned = append(c.Owned, p)
	}
	return c
}
