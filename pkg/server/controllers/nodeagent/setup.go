package nodeagent

import (
	"slices"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
)

// The controllers' names in logs and metrics.
const (
	NodesControllerName = "nodeagent-nodes"
	PodsControllerName  = "nodeagent-pods"
)

// Setup adds the node agent to m: the registration of Options.Nodes
// nodes, the node controller (pod CIDRs, status, leases) and the pod
// controller (the pods' lifecycle). Nodes and pods are read from m's
// informers; leases from the server.
func Setup(m *manager.Manager, opts Options) error {
	cfg, err := opts.config()
	if err != nil {
		return err
	}
	kubelets := newKubeletEvents(m.API(), cfg.Clock, m.Logger())
	if err := m.Add(kubelets); err != nil {
		return err
	}
	if err := m.Add(registrar{cfg: cfg, api: m.API(), clock: cfg.Clock, log: m.Logger()}); err != nil {
		return err
	}
	ips := newPodIPs()
	nodes := &nodeReconciler{cfg: cfg, cache: m.Client(), api: m.API(), clock: cfg.Clock, ips: ips, leases: map[string]*coordinationv1.Lease{}}
	// One worker: the pod CIDRs of adopted nodes are picked from what the
	// others hold.
	if _, err := m.NewController(nodes, controller.Options{Name: NodesControllerName, Workers: 1, Clock: cfg.Clock},
		controller.For[*corev1.Node](controller.WithPredicates(simulatedNodes))); err != nil {
		return err
	}
	pods := &podReconciler{cfg: cfg, cache: m.Client(), clock: cfg.Clock, ips: ips, events: kubelets, uids: map[types.NamespacedName]types.UID{}}
	_, err = m.NewController(pods, controller.Options{Name: PodsControllerName, Workers: cfg.Workers, Clock: cfg.Clock},
		controller.For[*corev1.Pod](controller.WithPredicates(boundPods)),
		controller.Watches(pods.podsOn, controller.WithPredicates(kubeletStarted)))
	return err
}

// simulatedNodes passes the nodes the agent runs, and deletions, which
// end their leases' renewal.
var simulatedNodes = predicate.Funcs[*corev1.Node]{
	CreateFunc: IsSimulated,
	UpdateFunc: func(old, n *corev1.Node) bool { return IsSimulated(n) || IsSimulated(old) },
}

// boundPods passes pods bound to a node, and deletions, which free the
// pods' addresses.
var boundPods = predicate.Funcs[*corev1.Pod]{
	CreateFunc: func(p *corev1.Pod) bool { return p.Spec.NodeName != "" },
	UpdateFunc: func(_, p *corev1.Pod) bool { return p.Spec.NodeName != "" },
}

// kubeletStarted passes the node changes after which the node's pods
// need a step: the agent starts running it, its heartbeat resumes, or it
// got the pod CIDR or address its pods wait for.
var kubeletStarted = predicate.Funcs[*corev1.Node]{
	CreateFunc: IsSimulated,
	UpdateFunc: func(old, n *corev1.Node) bool {
		if !IsSimulated(n) || heartbeatStopped(n) {
			return false
		}
		return !IsSimulated(old) || heartbeatStopped(old) || old.Spec.PodCIDR != n.Spec.PodCIDR ||
			!slices.Equal(old.Status.Addresses, n.Status.Addresses)
	},
	DeleteFunc: func(*corev1.Node) bool { return false },
}
