package garbagecollector_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// chains are three-level ownership chains, owner first: built-in kinds,
// and custom kinds under a cluster-scoped custom owner.
var chains = []struct {
	name  string
	kinds [3]schema.GroupVersionKind
}{
	{"configmaps", [3]schema.GroupVersionKind{configMap, configMap, configMap}},
	{"gadget-widget-configmap", [3]schema.GroupVersionKind{gadget, widget, configMap}},
}

// chain creates a owns b owns c, with blocking references; c carries
// extra finalizers, if any.
func (e *env) chain(kinds [3]schema.GroupVersionKind, cFinalizers ...string) (a, b, c obj) {
	e.t.Helper()
	a = e.create(kinds[0])
	b = e.create(kinds[1], a.ref(true))
	c = e.createWith(kinds[2], metav1.ObjectMeta{GenerateName: "c-", OwnerReferences: []metav1.OwnerReference{b.ref(true)}, Finalizers: cFinalizers})
	return a, b, c
}

func TestBackgroundCascade(t *testing.T) {
	for _, tc := range chains {
		for _, policy := range []metav1.DeletionPropagation{"", metav1.DeletePropagationBackground} {
			name := string(policy)
			if name == "" {
				name = "default"
			}
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				e := startEnv(t)
				a, b, c := e.chain(tc.kinds)
				e.delete(a, policy)
				e.waitGone(a, b, c)
			})
		}
	}
}

func TestForegroundCascade(t *testing.T) {
	for _, tc := range chains {
		t.Run(tc.name, func(t *testing.T) {
			e := startEnv(t)
			// c is held, so the chain must stop there: each owner
			// visibly waits for its blocking dependent.
			a, b, c := e.chain(tc.kinds, holdFinalizer)
			e.settle(tc.kinds[:]...)
			e.delete(a, metav1.DeletePropagationForeground)
			e.eventually("c is deleted by the collector and held", func() bool {
				m := e.get(c)
				return m != nil && m.DeletionTimestamp != nil
			})
			e.eventually("b waits for c in the foreground", func() bool {
				return deletingWith(e.get(b), metav1.FinalizerDeleteDependents)
			})
			if m := e.get(a); !deletingWith(m, metav1.FinalizerDeleteDependents) {
				t.Fatalf("a = %+v, want it deleting with foregroundDeletion while b and c remain", m)
			}
			e.release(c)
			e.waitGoneInOrder(a, b, c)
		})
	}
}

func TestForegroundDeletesInOrder(t *testing.T) {
	e := startEnv(t)
	w, err := e.c.Watch(t.Context(), &corev1.ConfigMapList{}, client.InNamespace(e.ns))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	a, b, c := e.chain([3]schema.GroupVersionKind{configMap, configMap, configMap})
	e.settle(configMap)
	e.delete(a, metav1.DeletePropagationForeground)
	var order []string
	for len(order) < 3 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch ended")
			}
			if name := ev.Object.(*corev1.ConfigMap).Name; ev.Type == watch.Deleted && !strings.HasPrefix(name, "sentinel-") {
				order = append(order, name)
			}
		case <-t.Context().Done():
			return
		}
	}
	if want := []string{c.meta.Name, b.meta.Name, a.meta.Name}; order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Errorf("deleted %v, want %v (c, b, a)", order, want)
	}
}

func TestOrphanCascade(t *testing.T) {
	for _, tc := range chains {
		t.Run(tc.name, func(t *testing.T) {
			e := startEnv(t)
			a, b, c := e.chain(tc.kinds)
			e.settle(tc.kinds[:]...)
			e.delete(a, metav1.DeletePropagationOrphan)
			e.waitGone(a)
			mb, mc := e.get(b), e.get(c)
			if mb == nil || mc == nil {
				t.Fatalf("b %v, c %v: orphans must stay", mb, mc)
			}
			if len(mb.OwnerReferences) != 0 {
				t.Errorf("b's owners %v, want the reference to a stripped", mb.OwnerReferences)
			}
			if len(mc.OwnerReferences) != 1 || mc.OwnerReferences[0].UID != b.meta.UID {
				t.Errorf("c's owners %v, want b", mc.OwnerReferences)
			}
		})
	}
}

func TestDependentsOfOwnersThatNeverExisted(t *testing.T) {
	e := startEnv(t)
	ghostCM := obj{gvk: configMap, meta: metav1.ObjectMeta{Name: "ghost", UID: "00000000-0000-0000-0000-000000000001"}}
	ghostGadget := obj{gvk: gadget, meta: metav1.ObjectMeta{Name: "ghost", UID: "00000000-0000-0000-0000-000000000002"}}
	d1 := e.create(configMap, ghostCM.ref(false))
	d2 := e.create(widget, ghostGadget.ref(true))
	e.waitGone(d1, d2)
}

func TestLiveAndDeadOwners(t *testing.T) {
	e := startEnv(t)
	live := e.create(configMap)
	doomed := e.create(widget)
	ghost := obj{gvk: gadget, meta: metav1.ObjectMeta{Name: "ghost", UID: "00000000-0000-0000-0000-000000000003"}}
	d := e.create(configMap, live.ref(false), doomed.ref(true), ghost.ref(false))
	e.delete(doomed, "")
	e.eventually("the dead references are stripped", func() bool {
		m := e.get(d)
		if m == nil {
			t.Fatal("a dependent with a live owner was deleted")
		}
		return len(m.OwnerReferences) == 1 && m.OwnerReferences[0].UID == live.meta.UID
	})
	e.delete(live, "")
	e.waitGone(d)
}

func TestForegroundCycleTerminates(t *testing.T) {
	e := startEnv(t)
	a := e.create(configMap)
	b := e.create(widget, a.ref(true))
	e.patchMeta(a, map[string]any{"ownerReferences": []metav1.OwnerReference{b.ref(true)}})
	e.delete(a, metav1.DeletePropagationForeground)
	e.waitGone(a, b)
}

func TestRecreatedOwnerDoesNotKeepOldDependents(t *testing.T) {
	e := startEnv(t)
	old := e.create(configMap)
	seen := e.create(configMap, old.ref(false))
	name := old.meta.Name
	e.delete(old, "")
	e.waitGone(old)
	reborn := e.createWith(configMap, metav1.ObjectMeta{Name: name})
	// One dependent the collector saw with its owner; one it first sees
	// after the name was taken again.
	late := e.create(configMap, old.ref(false))
	e.waitGone(seen, late)
	if e.get(reborn) == nil {
		t.Error("the re-created owner was deleted")
	}
}

func TestOwnerInAnotherNamespaceIsAbsent(t *testing.T) {
	e := startEnv(t)
	owner := e.create(configMap)
	other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gc-other-"}}
	if err := e.c.Create(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	elsewhere := e.createIn(other.Name, configMap, owner.ref(false))
	// A cluster-scoped dependent of a namespaced owner cannot be
	// resolved: Kubernetes leaves it alone, and so must the collector.
	unresolvable := e.create(gadget, owner.ref(false))
	e.waitGone(elsewhere)
	if e.get(owner) == nil {
		t.Error("the owner was deleted")
	}
	if e.get(unresolvable) == nil {
		t.Error("a cluster-scoped dependent of a namespaced owner was deleted")
	}
}

// createIn creates an object of kind gvk in namespace ns.
func (e *env) createIn(ns string, gvk schema.GroupVersionKind, owners ...metav1.OwnerReference) obj {
	e.t.Helper()
	saved := e.ns
	e.ns = ns
	defer func() { e.ns = saved }()
	return e.create(gvk, owners...)
}
