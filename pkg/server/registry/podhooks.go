package registry

import (
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GracePeriod is kube's rule for a Pod's graceful deletion: the period
// asked for, else the pod's terminationGracePeriodSeconds; none for a
// pod never scheduled or already ended, whose containers nobody runs; a
// negative period counts as one second.
func (podStrategy) GracePeriod(obj map[string]any, requested *int64) int64 {
	var pod corev1.Pod
	if errs := toTyped(obj, &pod); len(errs) > 0 {
		return 0
	}
	var period int64
	switch {
	case requested != nil:
		period = *requested
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

// ReturnsDeletedObject: a deleted Pod is answered with its last state.
func (podStrategy) ReturnsDeletedObject() {}

// ValidateBinding is kube's check of a Binding's target.
func (podStrategy) ValidateBinding(b map[string]any) field.ErrorList {
	var binding corev1.Binding
	if errs := toTyped(b, &binding); len(errs) > 0 {
		return errs
	}
	var errs field.ErrorList
	if k := binding.Target.Kind; k != "" && k != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), k, []string{"Node", "<empty>"}))
	}
	if binding.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	return errs
}

// Bind assigns a pending Pod to the binding's node, as kube-apiserver
// does: the pod must not be assigned, gated or being deleted; the
// binding's annotations are merged in and the PodScheduled condition
// becomes True.
func (podStrategy) Bind(now time.Time, obj, b map[string]any) error {
	var pod corev1.Pod
	var binding corev1.Binding
	if errs := append(toTyped(obj, &pod), toTyped(b, &binding)...); len(errs) > 0 {
		return errs.ToAggregate()
	}
	switch {
	case pod.DeletionTimestamp != nil:
		return fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	case pod.Spec.NodeName != "":
		return fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	case len(pod.Spec.SchedulingGates) != 0:
		return fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
	}
	pod.Spec.NodeName = binding.Target.Name
	if len(binding.Annotations) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		maps.Copy(pod.Annotations, binding.Annotations)
	}
	setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, now)
	if errs := fromTyped(obj, &pod); len(errs) > 0 {
		return errors.New(errs.ToAggregate().Error())
	}
	return nil
}

// setPodCondition updates or adds c, its transition time moving only
// when its status changes, as kube's UpdatePodCondition does.
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition, now time.Time) {
	c.LastTransitionTime = metav1.NewTime(now)
	for i, old := range status.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		status.Conditions[i] = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}

// ReturnsDeletedObject: a deleted PodTemplate is answered with its last
// state, as kube-apiserver does.
func (podTemplateStrategy) ReturnsDeletedObject() {}

// ReturnsDeletedObject: a deleted Service is answered with its last
// state, as kube-apiserver does.
func (serviceStrategy) ReturnsDeletedObject() {}
