package nodeagent

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// podReconciler is the kubelet's pod half: it steps each pod bound to a
// running simulated node with Advance, writes the status the step gives
// through pods/status, records the step's Events once the write landed,
// deletes pods whose deletion the step finished, and comes back when the
// step says the next thing happens.
type podReconciler struct {
	cfg    config
	cache  client.Interface // the informers' copies; writes pods
	clock  clock.Clock
	ips    *podIPs
	events *kubeletEvents
	images nodeImages

	mu   sync.Mutex
	uids map[types.NamespacedName]types.UID // pods holding an address
	// held are the addresses pods held when the agent started, by node,
	// from one list of every pod; nil until that list is taken. Nodes
	// are seeded from it as they first need an address, so the agent
	// lists the pods once, not once per node.
	held map[string]map[types.UID]string
}

func (r *podReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.cache.Get(ctx, req.NamespacedName, pod); err != nil {
		if client.IsNotFound(err) {
			r.release(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if pod.Spec.NodeName == "" {
		return reconcile.Result{}, nil
	}
	node := &corev1.Node{}
	if err := r.cache.Get(ctx, types.NamespacedName{Name: pod.Spec.NodeName}, node); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if !IsSimulated(node) || heartbeatStopped(node) {
		// Not ours, or its kubelet is down: the pod stays as it is
		// until the node lifecycle controller acts.
		return reconcile.Result{}, nil
	}
	log := reconcile.Logger(ctx)
	behaviour, err := ParseBehaviour(pod.Annotations)
	if err != nil {
		// The well-formed annotations still apply; a typo must not stop
		// the pod.
		log.WarnContext(ctx, "pod behaviour annotation ignored", "err", err)
	}
	env := Env{Now: r.clock.Now(), HostIP: internalIP(node), Present: func(image string) bool { return r.images.has(node.Name, image) }}
	if env.HostIP == "" {
		// An adopted node whose first status is not posted yet: its
		// address change brings the pod back; this is the fallback.
		return reconcile.Result{RequeueAfter: time.Second}, nil
	}
	terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	if pod.Status.PodIP == "" && !pod.Spec.HostNetwork && pod.DeletionTimestamp == nil && !terminal {
		ip, wait, err := r.podIP(ctx, node, pod)
		if err != nil || wait > 0 {
			return reconcile.Result{RequeueAfter: wait}, err
		}
		env.PodIP = ip
	}

	step := Advance(pod, env, behaviour)
	if !equality.Semantic.DeepEqual(step.Status, pod.Status) {
		updated := pod.DeepCopy()
		updated.Status = step.Status
		if err := r.cache.UpdateStatus(ctx, updated); err != nil {
			if client.IsNotFound(err) {
				r.release(req.NamespacedName)
				return reconcile.Result{}, nil
			}
			// A conflict means a newer pod: step that one.
			return reconcile.Result{}, fmt.Errorf("writing the pod's status: %w", err)
		}
		pod = updated
		r.images.keep(node.Name, step.Status)
	}
	rec := r.events.recorder(node.Name)
	for _, e := range step.Events {
		rec.Event(pod, e.Type, e.Reason, e.Message)
	}
	if step.Status.Phase == corev1.PodSucceeded || step.Status.Phase == corev1.PodFailed {
		// The sandbox is gone: its address may serve another pod.
		r.release(req.NamespacedName)
	}
	if step.Delete {
		err := r.cache.Delete(ctx, pod, client.GracePeriodSeconds(0), client.Preconditions{UID: &pod.UID})
		if err != nil && !client.IsNotFound(err) {
			return reconcile.Result{}, fmt.Errorf("deleting the stopped pod: %w", err)
		}
		r.release(req.NamespacedName)
		log.DebugContext(ctx, "pod stopped and deleted")
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: step.Wait}, nil
}

// podIP reserves pod's address on node. A node without a pod CIDR yet
// gets one from the node reconciler soon: the pod waits for it.
func (r *podReconciler) podIP(ctx context.Context, node *corev1.Node, pod *corev1.Pod) (string, time.Duration, error) {
	cidr, err := netip.ParsePrefix(node.Spec.PodCIDR)
	if err != nil {
		return "", time.Second, nil
	}
	if !r.ips.seeded(node.Name) {
		held, err := r.heldOn(ctx, node.Name)
		if err != nil {
			return "", 0, err
		}
		r.ips.seed(node.Name, cidr.Masked(), held)
	}
	ip, err := r.ips.assign(node.Name, pod.UID)
	if err != nil {
		return "", 0, err
	}
	r.mu.Lock()
	r.uids[keyOf(pod)] = pod.UID
	r.mu.Unlock()
	return ip, 0, nil
}

// heldOn returns the addresses pods held on node when the agent started,
// listing every pod the first time it is asked.
func (r *podReconciler) heldOn(ctx context.Context, node string) (map[types.UID]string, error) {
	r.mu.Lock()
	listed := r.held != nil
	r.mu.Unlock()
	if !listed {
		var pods corev1.PodList
		if err := r.cache.List(ctx, &pods); err != nil {
			return nil, err
		}
		r.mu.Lock()
		if r.held == nil {
			r.held = map[string]map[types.UID]string{}
			for _, p := range pods.Items {
				if p.Spec.NodeName != "" && p.Status.PodIP != "" && !p.Spec.HostNetwork &&
					p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
					if r.held[p.Spec.NodeName] == nil {
						r.held[p.Spec.NodeName] = map[types.UID]string{}
					}
					r.held[p.Spec.NodeName][p.UID] = p.Status.PodIP
					r.uids[keyOf(&p)] = p.UID
				}
			}
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	held := r.held[node]
	delete(r.held, node)
	return held, nil
}

func (r *podReconciler) release(key types.NamespacedName) {
	r.mu.Lock()
	uid, ok := r.uids[key]
	delete(r.uids, key)
	r.mu.Unlock()
	if ok {
		r.ips.release(uid)
	}
}

// internalIP is the node's InternalIP, the pods' hostIP.
func internalIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// podsOn maps a node to the pods bound to it, so that a node the agent
// starts (or resumes) running has its pods stepped.
func (r *podReconciler) podsOn(ctx context.Context, node *corev1.Node) []reconcile.Request {
	var pods corev1.PodList
	if err := r.cache.List(ctx, &pods); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, p := range pods.Items {
		if p.Spec.NodeName == node.Name {
			out = append(out, reconcile.Request{NamespacedName: keyOf(&p)})
		}
	}
	return out
}

func keyOf(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}
