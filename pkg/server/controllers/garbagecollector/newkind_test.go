package garbagecollector_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/garbagecollector"
)

// promptly bounds how long a dependent may outlive its owner in these
// tests; Kubernetes takes a few seconds.
const promptly = 10 * time.Second

// waitGonePromptly waits until dependent is gone, failing past promptly
// from start.
func (e *env) waitGonePromptly(start time.Time, dependent obj) {
	e.t.Helper()
	for e.get(dependent) != nil {
		if time.Since(start) > promptly {
			e.t.Fatalf("%s outlived its owner by more than %v", dependent, promptly)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Logf("%s gone %v after its owner", dependent, time.Since(start).Round(time.Millisecond))
}

// TestNewKindCollectedPromptly: the dependents of a custom kind whose CRD
// was created while the collector runs, and whose objects were created
// right after it, go within seconds of their owner. The steps are those
// of Kubernetes' e2e test of cascading deletion of custom resources.
func TestNewKindCollectedPromptly(t *testing.T) {
	e := startEnv(t)
	e.settle(configMap) // the collector is up and watching
	for _, tc := range []struct {
		kind, plural string
		scope        apiextensionsv1.ResourceScope
	}{
		{"Flange", "flanges", apiextensionsv1.ClusterScoped},
		{"Cog", "cogs", apiextensionsv1.NamespaceScoped},
	} {
		gvk := schema.GroupVersionKind{Group: testGroup, Version: "v1", Kind: tc.kind}
		e.createCRD(crdFor(gvk, tc.plural, tc.scope))
		owner := e.create(gvk)
		dependent := e.create(gvk, owner.ref(false))
		e.delete(owner, metav1.DeletePropagationBackground)
		start := time.Now()
		canary := e.create(gvk)
		e.delete(canary, metav1.DeletePropagationForeground)
		e.waitGonePromptly(start, dependent)
		e.waitGone(canary)
	}
}

// laggingDiscovery leaves the resources in hide out of the first
// discovery that would list them: the server answering discovery a
// moment after it sent the watch event of the CRD that added them.
type laggingDiscovery struct {
	garbagecollector.ResourceLister
	mu   sync.Mutex
	hide map[schema.GroupResource]bool // true until hidden once
}

func (l *laggingDiscovery) ServerResources(ctx context.Context) ([]client.Resource, error) {
	res, err := l.ResourceLister.ServerResources(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	hidden := map[schema.GroupResource]bool{}
	out := res[:0:0]
	for _, r := range res {
		if gr := r.GVR.GroupResource(); l.hide[gr] {
			hidden[gr] = true
			continue
		}
		out = append(out, r)
	}
	for gr := range hidden {
		l.hide[gr] = false
	}
	return out, err
}

// TestNewKindFoundWhenDiscoveryLags: a CRD's watch event may come before
// discovery lists its kind; the collector asks discovery again until it
// does, rather than waiting for the periodic rediscovery.
func TestNewKindFoundWhenDiscoveryLags(t *testing.T) {
	cog := schema.GroupVersionKind{Group: testGroup, Version: "v1", Kind: "Cog"}
	lag := &laggingDiscovery{hide: map[schema.GroupResource]bool{{Group: testGroup, Resource: "cogs"}: true}}
	e := startEnvWith(t, func(r *garbagecollector.Runnable) {
		lag.ResourceLister = r.Resources()
		r.SetResources(lag)
	})
	e.settle(configMap)
	e.createCRD(crdFor(cog, "cogs", apiextensionsv1.NamespaceScoped))
	owner := e.create(cog)
	dependent := e.create(cog, owner.ref(false))
	e.delete(owner, "")
	e.waitGonePromptly(time.Now(), dependent)
}

// stuckInformers hands the collector, for the kind Stuck, informers of
// a kind the server does not serve: their first list never succeeds, as
// happens to a kind whose CRD is deleted right after it was created, or
// whose objects cannot be converted.
type stuckInformers struct {
	garbagecollector.InformerSource
}

var stuckKind = schema.GroupVersionKind{Group: testGroup, Version: "v1", Kind: "Stuck"}

func (s stuckInformers) swap(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	if gvk == stuckKind {
		return schema.GroupVersionKind{Group: "unserved." + testGroup, Version: "v1", Kind: "Stuck"}
	}
	return gvk
}

func (s stuckInformers) Informers(ctx context.Context, gvk schema.GroupVersionKind, metadataOnly bool) ([]controller.Informer, error) {
	return s.InformerSource.Informers(ctx, s.swap(gvk), metadataOnly)
}

func (s stuckInformers) ForgetInformers(gvk schema.GroupVersionKind, metadataOnly bool) {
	s.InformerSource.ForgetInformers(s.swap(gvk), metadataOnly)
}

// TestCollectionGoesOnWhileANewKindSyncs: a newly served kind whose
// informer cannot list does not hold up the collection of other kinds.
// The collector used to stop its workers until the informer synced or
// 30 s passed, so a dependent outlived its owner by half a minute.
func TestCollectionGoesOnWhileANewKindSyncs(t *testing.T) {
	e := startEnvWith(t, func(r *garbagecollector.Runnable) { r.SetInformers(stuckInformers{r.Informers()}) })
	e.settle(configMap)
	before := strings.Count(e.logs.String(), "watching new kinds")
	e.createCRD(crdFor(stuckKind, "stucks", apiextensionsv1.NamespaceScoped))
	e.eventually("the collector watches the new kind", func() bool {
		return strings.Count(e.logs.String(), "watching new kinds") > before
	})

	owner := e.create(configMap)
	dependent := e.create(configMap, owner.ref(false))
	e.delete(owner, "")
	e.waitGonePromptly(time.Now(), dependent)

	cog := schema.GroupVersionKind{Group: testGroup, Version: "v1", Kind: "Cog"}
	e.createCRD(crdFor(cog, "cogs", apiextensionsv1.NamespaceScoped))
	owner = e.create(cog)
	dependent = e.create(cog, owner.ref(false))
	e.delete(owner, "")
	e.waitGonePromptly(time.Now(), dependent)
}

// TestForegroundWaitsForNewKinds: while a newly watched kind's informer
// has not listed its objects, a foreground deletion is not released (a
// dependent of that kind could be missed), until SyncTimeout lets the
// laggard go.
func TestForegroundWaitsForNewKinds(t *testing.T) {
	const timeout = 2 * time.Second
	e := startEnvWith(t, func(r *garbagecollector.Runnable) {
		r.SetInformers(stuckInformers{r.Informers()})
		r.Options().SyncTimeout = timeout
	})
	e.settle(configMap)
	before := strings.Count(e.logs.String(), "watching new kinds")
	e.createCRD(crdFor(stuckKind, "stucks", apiextensionsv1.NamespaceScoped))
	e.eventually("the collector watches the new kind", func() bool {
		return strings.Count(e.logs.String(), "watching new kinds") > before
	})
	start := time.Now()
	owner := e.create(configMap)
	e.delete(owner, metav1.DeletePropagationForeground)
	time.Sleep(timeout / 2)
	if m := e.get(owner); time.Since(start) < timeout && !deletingWith(m, metav1.FinalizerDeleteDependents) {
		t.Fatalf("owner = %+v, want it waiting in the foreground while a kind is not listed", m)
	}
	e.waitGone(owner)
	if !strings.Contains(e.logs.String(), "informers did not sync in time") {
		t.Error("the laggard was not logged")
	}
}
