package podgc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// parallelDeletes bounds the deletions in flight in one look: a large
// backlog of terminated pods goes quickly without flooding the server.
const parallelDeletes = 8

// writer is what collecting needs of the server.
type writer interface {
	Get(ctx context.Context, key types.NamespacedName, obj client.Object) error
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error
}

// collector is the pod garbage collector as the manager runs it: on the
// leader only, a look every period.
type collector struct {
	cache client.Reader // Pods and Nodes from informers
	api   writer        // the server itself, for the fresh node reads and the writes
	opts  Options
	log   *slog.Logger
	q     Quarantine
}

// NeedLeaderElection: two collectors would race each other's deletes.
func (*collector) NeedLeaderElection() bool { return true }

// Start looks at once, then every period, until ctx ends. A new term
// starts with an empty quarantine, as kube's collector does on start.
func (c *collector) Start(ctx context.Context) error {
	c.q = Quarantine{}
	for {
		c.look(ctx)
		t := c.opts.Clock.NewTimer(c.opts.Period)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		}
	}
}

// look is one pass: read, plan, confirm the suspects gone, delete.
func (c *collector) look(ctx context.Context) {
	podList, nodeList := &corev1.PodList{}, &corev1.NodeList{}
	if err := c.cache.List(ctx, podList); err != nil {
		if ctx.Err() == nil {
			c.log.ErrorContext(ctx, "listing pods failed", "err", err)
		}
		return
	}
	if err := c.cache.List(ctx, nodeList); err != nil {
		if ctx.Err() == nil {
			c.log.ErrorContext(ctx, "listing nodes failed", "err", err)
		}
		return
	}
	pods := make([]*corev1.Pod, len(podList.Items))
	for i := range podList.Items {
		pods[i] = &podList.Items[i]
	}
	nodes := make([]*corev1.Node, len(nodeList.Items))
	for i := range nodeList.Items {
		nodes[i] = &nodeList.Items[i]
	}

	dels := Plan(pods, nodes, c.opts.TerminatedPodThreshold)
	gone := map[string]bool{}
	for _, name := range c.q.Observe(pods, nodes, c.opts.Clock.Now(), c.opts.Quarantine) {
		c.q.Checked(name)
		err := c.api.Get(ctx, types.NamespacedName{Name: name}, &corev1.Node{})
		switch {
		case client.IsNotFound(err):
			gone[name] = true
		case err != nil:
			c.log.WarnContext(ctx, "reading a missing node failed", "node", name, "err", err)
		}
	}
	dels = append(dels, Orphans(pods, gone)...)
	c.apply(ctx, dels)
}

// apply carries out dels, a few at once.
func (c *collector) apply(ctx context.Context, dels []Deletion) {
	if len(dels) == 0 {
		return
	}
	done := map[types.UID]bool{}
	sem := make(chan struct{}, parallelDeletes)
	var wg sync.WaitGroup
	for _, d := range dels {
		if done[d.Pod.UID] {
			continue // orphaned and already collected for another reason
		}
		done[d.Pod.UID] = true
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			log := c.log.With("pod", d.Pod.Namespace+"/"+d.Pod.Name, "node", d.Pod.Spec.NodeName, "reason", d.Reason)
			if err := c.forceDelete(ctx, d); err != nil {
				log.WarnContext(ctx, "collecting a pod failed", "err", err)
				return
			}
			log.InfoContext(ctx, "force deleted pod")
		})
	}
	wg.Wait()
}

// errMarking wraps a failure to mark a pod Failed.
var errMarking = errors.New("marking the pod failed")

// forceDelete marks a pod that has not finished Failed, with d's
// condition if any, since no kubelet will (its node is gone, or it never
// had one), then deletes it with grace period 0.
func (c *collector) forceDelete(ctx context.Context, d Deletion) error {
	pod := d.Pod.DeepCopy()
	if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		pod.Status.Phase = corev1.PodFailed
		if d.Condition != nil {
			setCondition(&pod.Status, *d.Condition, metav1.NewTime(c.opts.Clock.Now()))
		}
		if err := c.api.UpdateStatus(ctx, pod); err != nil {
			if client.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("%w: %w", errMarking, err)
		}
	}
	uid := pod.UID
	err := c.api.Delete(ctx, pod, client.GracePeriodSeconds(0), client.Preconditions{UID: &uid})
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

// setCondition puts cond in status: a new condition, or one replacing
// the pod's of its type, which keeps its transition time when the status
// stays.
func setCondition(status *corev1.PodStatus, cond corev1.PodCondition, now metav1.Time) {
	cond.LastTransitionTime = now
	for i := range status.Conditions {
		if status.Conditions[i].Type == cond.Type {
			if status.Conditions[i].Status == cond.Status {
				cond.LastTransitionTime = status.Conditions[i].LastTransitionTime
			}
			status.Conditions[i] = cond
			return
		}
	}
	status.Conditions = append(status.Conditions, cond)
}
