package scheduler

import (
	"context"
	"fmt"
	"maps"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

var (
	podGVK       = corev1.SchemeGroupVersion.WithKind("Pod")
	nodeGVK      = corev1.SchemeGroupVersion.WithKind("Node")
	namespaceGVK = corev1.SchemeGroupVersion.WithKind("Namespace")
)

// feed keeps the view current from the pod, node and namespace informers
// and queues the pods to schedule: the controller's one source.
type feed struct {
	cluster       controller.Cluster
	view          *view
	schedulerName string
}

// Start registers the handlers and returns once they have seen the
// informers' first lists, so the first decisions see every node.
func (f *feed) Start(ctx context.Context, q controller.Queue) error {
	var regs []*cache.Registration
	add := func(gvk schema.GroupVersionKind, h cache.Handler[cache.Object]) error {
		infs, err := f.cluster.Informers(ctx, gvk, false)
		if err != nil {
			return fmt.Errorf("scheduler: informers for %s: %w", gvk.Kind, err)
		}
		for _, inf := range infs {
			r, err := inf.AddHandler(h, cache.HandlerOptions{Name: "scheduler-" + gvk.Kind})
			if err != nil {
				return err
			}
			regs = append(regs, r)
		}
		return nil
	}
	if err := add(namespaceGVK, cache.HandlerFuncs[cache.Object]{
		AddFunc:    func(o cache.Object, _ bool) { f.view.setNamespace(o.GetName(), o.GetLabels()) },
		UpdateFunc: func(_, o cache.Object) { f.view.setNamespace(o.GetName(), o.GetLabels()) },
		DeleteFunc: func(o cache.Object) { f.view.setNamespace(o.GetName(), nil) },
	}); err != nil {
		return err
	}
	if err := add(nodeGVK, cache.HandlerFuncs[cache.Object]{
		AddFunc: func(o cache.Object, _ bool) {
			if n, ok := o.(*corev1.Node); ok {
				f.view.setNode(n)
				f.retry(q, reconcile.TriggerCreate, n)
			}
		},
		UpdateFunc: func(old, o cache.Object) {
			n, ok := o.(*corev1.Node)
			if !ok {
				return
			}
			f.view.setNode(n)
			if was, ok := old.(*corev1.Node); !ok || nodeChanged(was, n) {
				f.retry(q, reconcile.TriggerUpdate, n)
			}
		},
		DeleteFunc: func(o cache.Object) { f.view.deleteNode(o.GetName()) },
	}); err != nil {
		return err
	}
	if err := add(podGVK, cache.HandlerFuncs[cache.Object]{
		AddFunc: func(o cache.Object, _ bool) {
			if p, ok := o.(*corev1.Pod); ok {
				f.pod(q, nil, p)
			}
		},
		UpdateFunc: func(old, o cache.Object) {
			if p, ok := o.(*corev1.Pod); ok {
				was, _ := old.(*corev1.Pod)
				f.pod(q, was, p)
			}
		},
		DeleteFunc: func(o cache.Object) {
			if p, ok := o.(*corev1.Pod); ok {
				f.view.remove(p.UID)
				f.view.dropPending(keyOf(p))
				if p.Spec.NodeName != "" {
					f.retry(q, reconcile.TriggerDelete, p)
				}
			}
		},
	}); err != nil {
		return err
	}
	for _, r := range regs {
		select {
		case <-r.Synced():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// pod sorts one pod event: finished pods free their room, bound pods
// count on their node, and unbound pods of this scheduler wait in the
// queue.
func (f *feed) pod(q controller.Queue, old, p *corev1.Pod) {
	key := keyOf(p)
	switch {
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		f.view.remove(p.UID)
		f.view.dropPending(key)
		if p.Spec.NodeName != "" {
			f.retry(q, reconcile.TriggerUpdate, p)
		}
	case p.Spec.NodeName != "":
		f.view.dropPending(key)
		f.view.place(p, p.Spec.NodeName)
		if old == nil || old.Spec.NodeName == "" || !maps.Equal(old.Labels, p.Labels) {
			// A new pod on a node may satisfy others' affinity.
			f.retry(q, reconcile.TriggerUpdate, p)
		}
	case p.DeletionTimestamp != nil || p.Spec.SchedulerName != f.schedulerName || len(p.Spec.SchedulingGates) > 0:
		// Gated pods wait out of the queue (kube's SchedulingGates
		// PreEnqueue; the API server wrote their SchedulingGated
		// condition); removing the last gate is a spec update, below.
		f.view.dropPending(key)
	default:
		f.view.setPending(p)
		// The scheduler's own status writes change nothing it reads; only
		// a new pod or a changed spec or labels is worth an attempt.
		if old == nil || !reflect.DeepEqual(old.Spec, p.Spec) || !maps.Equal(old.Labels, p.Labels) {
			trigger := reconcile.TriggerCreate
			if old != nil {
				trigger = reconcile.TriggerUpdate
			}
			q.Add(reconcile.Request{NamespacedName: key}, reconcile.Reason{Trigger: trigger, Kind: "Pod", Namespace: p.Namespace, Name: p.Name})
		}
	}
}

// retry queues every pod that did not fit, after a change that may let
// it: each still waits out its back-off in Reconcile.
func (f *feed) retry(q controller.Queue, trigger reconcile.Trigger, cause cache.Object) {
	kind := "Pod"
	if _, ok := cause.(*corev1.Node); ok {
		kind = "Node"
	}
	for _, key := range f.view.unschedulable() {
		q.Add(reconcile.Request{NamespacedName: key}, reconcile.Reason{Trigger: trigger, Kind: kind, Namespace: cause.GetNamespace(), Name: cause.GetName()})
	}
}

// nodeChanged reports a change the filters read: heartbeats, which
// rewrite conditions every few seconds, are not one.
func nodeChanged(was, n *corev1.Node) bool {
	return !reflect.DeepEqual(was.Spec, n.Spec) || !maps.Equal(was.Labels, n.Labels) ||
		!reflect.DeepEqual(was.Status.Allocatable, n.Status.Allocatable)
}

func keyOf(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}
