// Package controllers runs the API server's built-in controllers, the
// ones that make its semantics whole: namespace lifecycle, garbage
// collection, CRD cleanup, event expiry, Services' endpoints, node
// health, the eviction of pods from tainted nodes, the scheduler, each
// namespace's default ServiceAccount and CA bundle ConfigMap, the rules
// of aggregated ClusterRoles, the signing and cleaning up of
// CertificateSigningRequests, and the simulated nodes that run pods.
// They are ordinary operators on the public runtime (pkg/manager,
// pkg/controller, pkg/cache), talking to the server over HTTP like any
// client; pkg/server runs them next to
// the API, for `setpoint server` and for the test server
// (apiservertest's BuiltinControllers option).
package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/clusterroleaggregation"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/crdcleanup"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/cronjob"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/csrcleaner"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/csrsigning"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/daemonset"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/deployment"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/disruption"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/endpoints"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/eventttl"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/garbagecollector"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/job"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/namespace"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodeagent"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodelifecycle"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/podgc"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/pvcprotection"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/replicaset"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/rootcacertpublisher"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/scheduler"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/serviceaccount"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/statefulset"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/tainteviction"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/ttlafterfinished"
)

// The controllers' names, for Options.Disabled and the server's
// --controllers flag.
const (
	Namespace        = "namespace"
	GarbageCollector = "garbagecollector"
	CRDCleanup       = "crdcleanup"
	EventTTL         = "eventttl"
	EndpointSlice    = "endpointslice"
	NodeLifecycle    = "nodelifecycle"
	TaintEviction    = "tainteviction"
	NodeAgent        = "nodeagent"
	Scheduler        = "scheduler"
	Disruption       = "disruption"
	PodGC            = "podgc"
	ReplicaSet       = "replicaset"
	CronJob          = "cronjob"
	Job              = "job"
	TTLAfterFinished = "ttl-after-finished"
	DaemonSet        = "daemonset"
	StatefulSet      = "statefulset"
	PVCProtection    = "pvc-protection"
	Deployment       = "deployment"
	ServiceAccount   = "serviceaccount"
	RootCAPublisher  = "root-ca-cert-publisher"
	RoleAggregation  = "clusterrole-aggregation"
	CSRSigning       = "csrsigning"
	CSRCleaner       = "csrcleaner"
)

// Names lists every built-in controller.
func Names() []string {
	return []string{
		Namespace, GarbageCollector, CRDCleanup, EventTTL, EndpointSlice, NodeLifecycle, TaintEviction, NodeAgent, Scheduler, Disruption, PodGC,
		ReplicaSet,
		CronJob,
		Job,
		TTLAfterFinished,
		DaemonSet,
		StatefulSet,
		PVCProtection,
		Deployment,
		ServiceAccount,
		RootCAPublisher,
		RoleAggregation,
		CSRSigning,
		CSRCleaner,
	}
}

// Options configure the built-in controllers. The zero value runs all of
// them without leader election.
type Options struct {
	// Disabled names controllers not to run.
	Disabled []string
	// LeaderElection makes replicas sharing one store take turns: only
	// the holder of the Lease LeaderElectionNamespace/LeaderElectionID
	// (default kube-system/setpoint-controllers) runs the controllers.
	LeaderElection          bool
	LeaderElectionNamespace string
	LeaderElectionID        string
	// Identity names this replica in the lease; empty is the hostname
	// and a random suffix.
	Identity string
	// EventTTL is how long Events live after their last write; 0 is an
	// hour.
	EventTTL time.Duration
	// Nodes is how many simulated nodes the node agent registers
	// (sim-node-0, ...); nodes labelled setpoint.dev/simulated=true are
	// simulated too. ClusterCIDR is where their pod CIDRs come from;
	// empty is the agent's default.
	Nodes       int
	ClusterCIDR string
	// NodeMonitorGracePeriod is how long a node may go without a
	// heartbeat before the node lifecycle controller marks it Unknown
	// and unreachable; 0 is 50 s, kube-controller-manager's default. It
	// must exceed the lease renewal interval (10 s).
	NodeMonitorGracePeriod time.Duration
	// TerminatedPodGCThreshold is how many terminated pods may exist
	// before the pod garbage collector deletes the oldest; 0 is 12500,
	// negative turns that collection off.
	TerminatedPodGCThreshold int
	// RootCA is the CA bundle (PEM) the root CA publisher puts in every
	// namespace's kube-root-ca.crt; empty is the CA the controllers'
	// rest.Config trusts.
	RootCA []byte
	// Signer issues the certificates of approved
	// CertificateSigningRequests with the cluster's CA; without one
	// the csrsigning controller does not run, as
	// kube-controller-manager's does not without a signing key.
	Signer csrsigning.Signer
	// ClusterSigningDuration is the longest certificate the signer
	// issues; 0 is a year, as kube-controller-manager's
	// --cluster-signing-duration.
	ClusterSigningDuration time.Duration
	// Logger receives the controllers' logs; nil is slog.Default().
	Logger *slog.Logger
}

// ParseSelection reads a --controllers value: a comma-separated list
// where "*" is every controller, "name" enables one and "-name"
// disables one (as kube-controller-manager reads its flag). It returns
// the controllers to disable.
func ParseSelection(s string) ([]string, error) {
	enabled := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part == "*":
			for _, n := range Names() {
				if _, set := enabled[n]; !set {
					enabled[n] = true
				}
			}
		case strings.HasPrefix(part, "-"):
			if !slices.Contains(Names(), part[1:]) {
				return nil, fmt.Errorf("unknown controller %q (have %s)", part[1:], strings.Join(Names(), ", "))
			}
			enabled[part[1:]] = false
		default:
			if !slices.Contains(Names(), part) {
				return nil, fmt.Errorf("unknown controller %q (have %s)", part, strings.Join(Names(), ", "))
			}
			enabled[part] = true
		}
	}
	var disabled []string
	for _, n := range Names() {
		if !enabled[n] {
			disabled = append(disabled, n)
		}
	}
	return disabled, nil
}

// Run runs the enabled controllers against the server cfg reaches until
// ctx ends, then returns nil after a clean stop.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	if opts.LeaderElectionNamespace == "" {
		opts.LeaderElectionNamespace = "kube-system"
	}
	if opts.LeaderElectionID == "" {
		opts.LeaderElectionID = "setpoint-controllers"
	}
	// The controllers' types: the client's default ones and the
	// certificates API the CSR controllers read.
	scheme := client.NewScheme()
	if err := certificatesv1.AddToScheme(scheme); err != nil {
		return err
	}
	m, err := manager.New(cfg, manager.Options{
		Client:                  client.Options{Scheme: scheme},
		LeaderElection:          opts.LeaderElection,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		LeaderElectionID:        opts.LeaderElectionID,
		Identity:                opts.Identity,
		Logger:                  opts.Logger,
		// No built-in controller reads an Event but to expire it.
		Cache: cache.FactoryOptions{Transforms: map[schema.GroupVersionKind]func(cache.Object) (cache.Object, error){
			corev1.SchemeGroupVersion.WithKind("Event"): eventttl.Trim,
		},
			// Nor any ConfigMap but kube-root-ca.crt, to publish it:
			// watching the others would cost every ConfigMap write.
			FieldSelectors: map[schema.GroupVersionKind]string{
				corev1.SchemeGroupVersion.WithKind("ConfigMap"): rootcacertpublisher.FieldSelector,
			},
		},
	})
	if err != nil {
		return err
	}
	setups := []struct {
		name  string
		setup func() error
	}{
		{Namespace, func() error { return namespace.Setup(m, namespace.Options{}) }},
		{GarbageCollector, func() error { return garbagecollector.Setup(m, garbagecollector.Options{}) }},
		{CRDCleanup, func() error { return crdcleanup.Setup(m, crdcleanup.Options{}) }},
		{EventTTL, func() error { return eventttl.Setup(m, eventttl.Options{TTL: opts.EventTTL}) }},
		{EndpointSlice, func() error { return endpoints.Setup(m, endpoints.Options{}) }},
		{NodeLifecycle, func() error {
			return nodelifecycle.Setup(m, nodelifecycle.Options{GracePeriod: opts.NodeMonitorGracePeriod})
		}},
		{TaintEviction, func() error { return tainteviction.Setup(m, tainteviction.Options{}) }},
		{Scheduler, func() error { return scheduler.Setup(m, scheduler.Options{}) }},
		{Disruption, func() error { return disruption.Setup(m, disruption.Options{}) }},
		{PodGC, func() error {
			return podgc.Setup(m, podgc.Options{TerminatedPodThreshold: opts.TerminatedPodGCThreshold})
		}},
		{ReplicaSet, func() error { return replicaset.Setup(m, replicaset.Options{}) }},
		{CronJob, func() error { return cronjob.Setup(m, cronjob.Options{}) }},
		{Job, func() error { return job.Setup(m, job.Options{}) }},
		{TTLAfterFinished, func() error { return ttlafterfinished.Setup(m, ttlafterfinished.Options{}) }},
		{DaemonSet, func() error { return daemonset.Setup(m, daemonset.Options{}) }},
		{StatefulSet, func() error { return statefulset.Setup(m, statefulset.Options{}) }},
		{PVCProtection, func() error { return pvcprotection.Setup(m, pvcprotection.Options{}) }},
		{Deployment, func() error { return deployment.Setup(m, deployment.Options{}) }},
		{ServiceAccount, func() error { return serviceaccount.Setup(m, serviceaccount.Options{}) }},
		{RootCAPublisher, func() error {
			ca := opts.RootCA
			if len(ca) == 0 {
				var err error
				if ca, err = rootcacertpublisher.BundleFrom(cfg); err != nil {
					return err
				}
			}
			return rootcacertpublisher.Setup(m, rootcacertpublisher.Options{CA: ca})
		}},
		{RoleAggregation, func() error { return clusterroleaggregation.Setup(m, clusterroleaggregation.Options{}) }},
		{CSRSigning, func() error {
			if opts.Signer == nil {
				m.Logger().Info("not running the CSR signer: no signer given", "controller", CSRSigning)
				return nil
			}
			return csrsigning.Setup(m, csrsigning.Options{Signer: opts.Signer, Duration: opts.ClusterSigningDuration})
		}},
		{CSRCleaner, func() error { return csrcleaner.Setup(m, csrcleaner.Options{}) }},
		{NodeAgent, func() error {
			return nodeagent.Setup(m, nodeagent.Options{Nodes: opts.Nodes, ClusterCIDR: opts.ClusterCIDR})
		}},
	}
	for _, s := range setups {
		if slices.Contains(opts.Disabled, s.name) {
			continue
		}
		if err := s.setup(); err != nil {
			return fmt.Errorf("controller %s: %w", s.name, err)
		}
	}
	return m.Start(ctx)
}
