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
	"github.com/setpoint-dev/setpoint/pkg/predicate"
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
				f.view.forget(keyOf(p))
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

// pod sorts one pod event for the view: finished pods free their room,
// and bound pods count on their node. Pods to schedule reach the queue
// through the controller's For source (pending).
func (f *feed) pod(q controller.Queue, old, p *corev1.Pod) {
	switch {
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		f.view.remove(p.UID)
		f.view.forget(keyOf(p))
		if p.Spec.NodeName != "" {
			f.retry(q, reconcile.TriggerUpdate, p)
		}
	case p.Spec.NodeName != "":
		f.view.forget(keyOf(p))
		f.view.place(p, p.Spec.NodeName)
		if old == nil || old.Spec.NodeName == "" || !maps.Equal(old.Labels, p.Labels) {
			// A new pod on a node may satisfy others' affinity.
			f.retry(q, reconcile.TriggerUpdate, p)
		}
	}
}

// pending passes the pod events worth an attempt: a new pod this
// scheduler takes, or one whose spec or labels changed. The scheduler's
// own status writes change nothing it reads, and deletions are the
// view's business.
func pending(schedulerName string) predicate.Funcs[*corev1.Pod] {
	ours := func(p *corev1.Pod) bool { return takes(p, schedulerName) }
	return predicate.Funcs[*corev1.Pod]{
		CreateFunc: ours,
		UpdateFunc: func(old, p *corev1.Pod) bool {
			return ours(p) && (!reflect.DeepEqual(old.Spec, p.Spec) || !maps.Equal(old.Labels, p.Labels))
		},
		DeleteFunc: func(*corev1.Pod) bool { return false },
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
