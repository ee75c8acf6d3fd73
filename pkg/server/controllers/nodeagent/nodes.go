package nodeagent

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// nodeReconciler is the kubelet's node half for every simulated node: it
// gives an adopted node a pod CIDR, posts the node's status when it
// changed or StatusInterval passed, and renews its Lease every
// LeaseInterval, waking itself for the next of these.
type nodeReconciler struct {
	cfg   config
	cache client.Interface // the informers' copies; writes the node
	api   client.Interface // the server; reads and writes leases
	clock clock.Clock
	ips   *podIPs // the pods' addresses, forgotten with the node

	mu     sync.Mutex
	leases map[string]*coordinationv1.Lease // the last lease written per node
}

func (r *nodeReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	node := &corev1.Node{}
	if err := r.cache.Get(ctx, req.NamespacedName, node); err != nil {
		if client.IsNotFound(err) {
			r.forgetLease(req.Name)
			r.ips.forget(req.Name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if !IsSimulated(node) || heartbeatStopped(node) || node.DeletionTimestamp != nil {
		// Not ours, or its kubelet is down: nothing is renewed.
		r.forgetLease(node.Name)
		return reconcile.Result{}, nil
	}
	if node.Spec.PodCIDR == "" {
		// kube-controller-manager's node IPAM would do this; the nodes
		// users bring have nobody else to do it.
		return reconcile.Result{}, r.assignPodCIDR(ctx, node)
	}
	now := r.clock.Now()
	slot, ok := r.cfg.slotOf(node.Spec.PodCIDR)
	if !ok {
		slot = 0
	}
	nextStatus := lastHeartbeat(node).Add(r.cfg.StatusInterval)
	if changed := r.cfg.reportStatus(node, slot, now); changed || !now.Before(nextStatus) {
		if err := r.cache.UpdateStatus(ctx, node); err != nil {
			return reconcile.Result{}, fmt.Errorf("posting the node's status: %w", err)
		}
		nextStatus = now.Add(r.cfg.StatusInterval)
	}
	nextLease, err := r.renewLease(ctx, node, now)
	if err != nil {
		return reconcile.Result{}, err
	}
	next := nextLease
	if nextStatus.Before(next) {
		next = nextStatus
	}
	return reconcile.Result{RequeueAfter: max(next.Sub(now), time.Millisecond)}, nil
}

// assignPodCIDR gives node the lowest free slot's pod CIDR, slots below
// Options.Nodes kept for the registered nodes.
func (r *nodeReconciler) assignPodCIDR(ctx context.Context, node *corev1.Node) error {
	var nodes corev1.NodeList
	if err := r.cache.List(ctx, &nodes); err != nil {
		return err
	}
	used := map[int]bool{}
	for _, n := range nodes.Items {
		if s, ok := r.cfg.slotOf(n.Spec.PodCIDR); ok {
			used[s] = true
		}
	}
	for s := r.cfg.Nodes; s < r.cfg.slots(); s++ {
		if !used[s] {
			cidr := r.cfg.podCIDR(s).String()
			node.Spec.PodCIDR, node.Spec.PodCIDRs = cidr, []string{cidr}
			if err := r.cache.Update(ctx, node); err != nil {
				return fmt.Errorf("assigning the node's pod CIDR: %w", err)
			}
			return nil
		}
	}
	return fmt.Errorf("node %s: %w", node.Name, &OptionsError{"ClusterCIDR", fmt.Errorf("no pod CIDR left in %s", r.cfg.clusterCIDR)})
}

// renewLease renews node's Lease if it is due, and says when the next
// renewal is.
func (r *nodeReconciler) renewLease(ctx context.Context, node *corev1.Node, now time.Time) (time.Time, error) {
	r.mu.Lock()
	last := r.leases[node.Name]
	r.mu.Unlock()
	if last != nil && last.Spec.RenewTime != nil && last.OwnerReferences[0].UID == node.UID {
		if due := last.Spec.RenewTime.Add(r.cfg.LeaseInterval); now.Before(due) {
			return due, nil
		}
	}
	lease := &coordinationv1.Lease{}
	if last != nil {
		lease = last.DeepCopy()
	} else if err := r.api.Get(ctx, types.NamespacedName{Namespace: NodeLeaseNamespace, Name: node.Name}, lease); err != nil {
		if !client.IsNotFound(err) {
			return time.Time{}, fmt.Errorf("reading the node's lease: %w", err)
		}
		lease = nil
	}
	var err error
	if lease == nil {
		lease = &coordinationv1.Lease{}
		r.cfg.renewLease(lease, node, now)
		err = r.api.Create(ctx, lease)
	} else {
		r.cfg.renewLease(lease, node, now)
		err = r.api.Update(ctx, lease)
	}
	if err != nil {
		// Read it afresh next time: another writer, or a deletion.
		r.forgetLease(node.Name)
		return time.Time{}, fmt.Errorf("renewing the node's lease: %w", err)
	}
	r.mu.Lock()
	r.leases[node.Name] = lease
	r.mu.Unlock()
	return now.Add(r.cfg.LeaseInterval), nil
}

func (r *nodeReconciler) forgetLease(node string) {
	r.mu.Lock()
	delete(r.leases, node)
	r.mu.Unlock()
}

// registrar registers the Options.Nodes nodes once, at start, as a
// kubelet registers its node: an existing node is left as it is.
type registrar struct {
	cfg   config
	api   client.Interface
	clock clock.Clock
	log   *slog.Logger
}

// NeedLeaderElection makes only the elected replica register nodes.
func (registrar) NeedLeaderElection() bool { return true }

func (g registrar) Start(ctx context.Context) error {
	for i := 0; i < g.cfg.Nodes; {
		err := g.api.Create(ctx, g.cfg.newNode(i, g.clock.Now()))
		if err == nil || client.IsAlreadyExists(err) {
			i++
			continue
		}
		g.log.WarnContext(ctx, "registering a simulated node failed, retrying", "node", g.cfg.nodeName(i), "err", err)
		t := g.clock.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		}
	}
	<-ctx.Done()
	return nil
}
