package disruption

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// eventRecorder records events on a budget.
type eventRecorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// reconciler brings one budget's status to what Compute makes of its
// pods.
type reconciler struct {
	cache  client.Reader // budgets and pods, from informers
	owners client.Reader // the pods' controllers, read from the API
	api    client.Writer
	events eventRecorder
	clock  clock.Clock
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pdb := &policyv1.PodDisruptionBudget{}
	if err := r.cache.Get(ctx, req.NamespacedName, pdb); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	in := Input{Budget: pdb, Now: r.clock.Now(), Scales: map[types.UID]int32{}}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err == nil {
		pods := &corev1.PodList{}
		if err := r.cache.List(ctx, pods, client.InNamespace(pdb.Namespace)); err != nil {
			return reconcile.Result{}, err
		}
		// Matched here rather than by a list selector: a budget
		// without a selector picks no pods, which no selector
		// string says.
		for i := range pods.Items {
			if sel.Matches(labels.Set(pods.Items[i].Labels)) {
				in.Pods = append(in.Pods, &pods.Items[i])
			}
		}
		err = r.scales(ctx, in.Pods, in.Scales)
	}
	var out Output
	if err != nil {
		// A selector that cannot be read or a controller that
		// cannot be reached fails safe, as in Compute.
		out = failSafe(pdb, err, in.Now, Output{})
	} else {
		out = Compute(in)
	}
	for _, e := range out.Events {
		r.events.Eventf(pdb, e.Type, e.Reason, "%s", e.Message)
	}
	if out.Changed {
		next := pdb.DeepCopy()
		next.Status = out.Status
		if err := r.api.UpdateStatus(ctx, next); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{RequeueAfter: out.Recheck}, nil
}

// scales reads the replicas of the pods' controllers into scales, as
// kube's finders do: a ReplicaSet a Deployment controls counts as the
// Deployment. A controller that does not exist is left out.
func (r *reconciler) scales(ctx context.Context, pods []*corev1.Pod, scales map[types.UID]int32) error {
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		if ref == nil {
			continue
		}
		if _, ok := scales[ref.UID]; ok {
			continue
		}
		owner, err := r.owner(ctx, pod.Namespace, ref)
		if err != nil || owner == nil {
			if err != nil {
				return err
			}
			continue
		}
		if up := metav1.GetControllerOf(owner); ref.Kind == "ReplicaSet" && up != nil && up.Kind == "Deployment" {
			dep, err := r.owner(ctx, pod.Namespace, up)
			if err != nil {
				return err
			}
			if dep != nil {
				owner = dep
			}
		}
		n, found, err := unstructured.NestedInt64(owner.Object, "spec", "replicas")
		if err != nil {
			return fmt.Errorf("controller %s %s: %w", ref.Kind, ref.Name, err)
		}
		if !found {
			n = 1
		}
		scales[ref.UID] = int32(n)
	}
	return nil
}

// owner reads the object ref names, or nil when it is gone or another
// object now holds its name.
func (r *reconciler) owner(ctx context.Context, ns string, ref *metav1.OwnerReference) (*unstructured.Unstructured, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gv.WithKind(ref.Kind))
	switch err := r.owners.Get(ctx, types.NamespacedName{Namespace: ns, Name: ref.Name}, u); {
	case client.IsNotFound(err), apimeta.IsNoMatchError(err):
		// A controller whose kind is not served cannot be found
		// either.
		return nil, nil
	case err != nil:
		return nil, err
	}
	if u.GetUID() != ref.UID {
		return nil, nil
	}
	return u, nil
}
