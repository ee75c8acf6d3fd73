package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxDisruptedPods bounds a budget's status.disruptedPods: past it the
// disruption controller has fallen behind and evictions are refused.
const maxDisruptedPods = 2000

// budgetWriteRetries is how often an eviction retries a budget write
// that lost to a concurrent one, as kube's EvictionsRetry.
const budgetWriteRetries = 20

// evictRefusedMessage is kube's answer to an eviction a budget forbids.
const evictRefusedMessage = "Cannot evict pod as it would violate the pod's disruption budget."

// BudgetResource: pods are limited by policy/v1 PodDisruptionBudgets.
func (podStrategy) BudgetResource() schema.GroupVersionResource {
	return policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets")
}

// EvictsFreely: a pod that has finished, has not started or is already
// being deleted disrupts nothing; a pending one is deleted only if it is
// still the pod that was read.
func (podStrategy) EvictsFreely(obj map[string]any) (free, pin bool) {
	phase, _ := nestedMap(obj, false, "status")["phase"].(string)
	_, deleting := nestedMap(obj, false, "metadata")["deletionTimestamp"]
	finished := phase == string(corev1.PodSucceeded) || phase == string(corev1.PodFailed)
	free = finished || deleting || phase == string(corev1.PodPending)
	return free, free && !finished && !deleting
}

// ChargeBudgets is kube's EvictionREST check: the pod's one matching
// budget must allow a disruption, which the eviction takes by
// decrementing status.disruptionsAllowed and recording the pod in
// status.disruptedPods. An unready pod is let go without a charge when
// the budget says AlwaysAllow or is already met.
func (podStrategy) ChargeBudgets(ctx context.Context, now time.Time, obj map[string]any, budgets Budgets, dryRun bool) (bool, string, error) {
	var pod corev1.Pod
	if errs := toTyped(obj, &pod); len(errs) > 0 {
		return false, "", errs.ToAggregate()
	}
	list, err := budgets.List(ctx, pod.Namespace)
	if err != nil {
		return false, "", err
	}
	var matched []*policyv1.PodDisruptionBudget
	for _, b := range list {
		pdb := new(policyv1.PodDisruptionBudget)
		if errs := toTyped(b, pdb); len(errs) > 0 {
			return false, "", errs.ToAggregate()
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		matched = append(matched, pdb)
	}
	switch len(matched) {
	case 0:
		return false, "", nil
	case 1:
	default:
		return false, "", &InternalRefusalError{Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}
	}
	pdb := matched[0]
	if !podCondition(&pod.Status, corev1.PodReady) {
		if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
			return true, pdb.Name, nil
		}
		if pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0 {
			return true, pdb.Name, nil
		}
	}
	for attempt := 0; ; attempt++ {
		err := chargeBudget(ctx, now, pdb, pod.Name, budgets, dryRun)
		if !errors.Is(err, ErrConflict) || attempt == budgetWriteRetries {
			return false, pdb.Name, err
		}
		b, err := budgets.Get(ctx, pod.Namespace, pdb.Name)
		if err != nil {
			return false, pdb.Name, err
		}
		pdb = new(policyv1.PodDisruptionBudget)
		if errs := toTyped(b, pdb); len(errs) > 0 {
			return false, "", errs.ToAggregate()
		}
	}
}

// chargeBudget is kube's checkAndDecrement.
func chargeBudget(ctx context.Context, now time.Time, pdb *policyv1.PodDisruptionBudget, pod string, budgets Budgets, dryRun bool) error {
	st := &pdb.Status
	switch {
	case st.ObservedGeneration < pdb.Generation:
		return BudgetInProgress(pdb.Name)
	case st.DisruptionsAllowed < 0:
		return &ForbiddenError{Reason: "pdb disruptions allowed is negative"}
	case len(st.DisruptedPods) > maxDisruptedPods:
		return &ForbiddenError{Reason: "DisruptedPods map too big - too many evictions not confirmed by PDB controller"}
	case st.DisruptionsAllowed == 0:
		return &TooManyRequestsError{
			Message:   evictRefusedMessage,
			CauseType: string(policyv1.DisruptionBudgetCause),
			CauseMessage: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
				pdb.Name, st.DesiredHealthy, st.CurrentHealthy),
		}
	}
	st.DisruptionsAllowed--
	if st.DisruptionsAllowed == 0 {
		apimeta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
			Reason: policyv1.InsufficientPodsReason, ObservedGeneration: st.ObservedGeneration,
			LastTransitionTime: metav1.NewTime(now),
		})
	}
	if dryRun {
		return nil
	}
	if st.DisruptedPods == nil {
		st.DisruptedPods = map[string]metav1.Time{}
	}
	st.DisruptedPods[pod] = metav1.NewTime(now)
	obj := map[string]any{}
	if errs := fromTyped(obj, pdb); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return budgets.UpdateStatus(ctx, obj)
}

// BudgetInProgress is kube's refusal of an eviction whose budget the
// disruption controller has not yet seen in its current generation.
func BudgetInProgress(name string) error {
	return &TooManyRequestsError{
		Message: evictRefusedMessage, RetryAfterSeconds: 10,
		CauseType:    string(policyv1.DisruptionBudgetCause),
		CauseMessage: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name),
	}
}

// MarkEvicted sets the DisruptionTarget condition kube sets on a pod
// the eviction API deletes.
func (podStrategy) MarkEvicted(now time.Time, obj map[string]any) {
	st := nestedMap(obj, true, "status")
	conds, _ := st["conditions"].([]any)
	cond := map[string]any{
		"type": string(corev1.DisruptionTarget), "status": string(corev1.ConditionTrue),
		"reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting",
		"lastTransitionTime": now.UTC().Format(time.RFC3339),
	}
	for i, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != string(corev1.DisruptionTarget) {
			continue
		}
		if m["status"] == cond["status"] {
			cond["lastTransitionTime"] = m["lastTransitionTime"]
		}
		conds[i] = cond
		return
	}
	st["conditions"] = append(conds, cond)
}
