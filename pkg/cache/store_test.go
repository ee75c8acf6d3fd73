package cache

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func labelled(ns, name string, l map[string]string) *corev1.ConfigMap {
	c := cm(ns, name, "1")
	c.Labels = l
	return c
}

func names(objs []*corev1.ConfigMap) []string {
	var out []string
	for _, o := range objs {
		out = append(out, Key(o))
	}
	slices.Sort(out)
	return out
}

// forms runs f on a store of each form: objects as they are, and
// compact (encoded).
func forms(t *testing.T, f func(t *testing.T, compact bool)) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) { f(t, compact) })
	}
}

func testStore(t *testing.T, compact bool) *Store[*corev1.ConfigMap] {
	t.Helper()
	s := NewStore(StoreOptions[*corev1.ConfigMap]{Compact: compact, Indexers: map[string]IndexFunc[*corev1.ConfigMap]{
		"app": func(c *corev1.ConfigMap) []string {
			if v, ok := c.Labels["app"]; ok {
				return []string{v}
			}
			return nil
		},
	}})
	for _, c := range []*corev1.ConfigMap{
		labelled("a", "x", map[string]string{"app": "web", "tier": "front"}),
		labelled("a", "y", map[string]string{"app": "db"}),
		labelled("b", "x", map[string]string{"app": "web"}),
		labelled("", "cluster", nil),
	} {
		s.Upsert(c)
	}
	return s
}

func TestStoreIndexes(t *testing.T) { forms(t, testStoreIndexes) }

func testStoreIndexes(t *testing.T, compact bool) {
	s := testStore(t, compact)
	tests := []struct {
		index, value string
		want         []string
	}{
		{NamespaceIndex, "a", []string{"a/x", "a/y"}},
		{NamespaceIndex, "b", []string{"b/x"}},
		{NamespaceIndex, "", []string{"cluster"}},
		{NamespaceIndex, "none", nil},
		{"app", "web", []string{"a/x", "b/x"}},
		{"app", "db", []string{"a/y"}},
	}
	for _, tt := range tests {
		got, err := s.ByIndex(tt.index, tt.value)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, tt.index+"="+tt.value, names(got), tt.want)
	}
	if _, err := s.ByIndex("nope", "x"); err == nil {
		t.Error("ByIndex of a missing index: no error")
	}

	// Updates move keys between index values; deletes remove them.
	moved := labelled("a", "y", map[string]string{"app": "web"})
	moved.ResourceVersion = "2"
	s.Upsert(moved)
	s.Delete("b/x")
	got, _ := s.ByIndex("app", "web")
	eq(t, "app=web after changes", names(got), []string{"a/x", "a/y"})
	got, _ = s.ByIndex("app", "db")
	eq(t, "app=db after changes", names(got), nil)
	if len(s.indices["app"]) != 1 || len(s.indices[NamespaceIndex]) != 2 {
		t.Errorf("empty index values kept: %v", s.indices)
	}

	// An index added later covers what is already stored.
	if err := s.AddIndexers(map[string]IndexFunc[*corev1.ConfigMap]{"name": func(c *corev1.ConfigMap) []string { return []string{c.Name} }}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.ByIndex("name", "x")
	eq(t, "name=x", names(got), []string{"a/x"})
	if err := s.AddIndexers(map[string]IndexFunc[*corev1.ConfigMap]{"name": nil}); err == nil {
		t.Error("adding an existing index: no error")
	}
}

func TestLister(t *testing.T) { forms(t, testLister) }

func testLister(t *testing.T, compact bool) {
	l := NewLister[*corev1.ConfigMap](testStore(t, compact))
	sel := func(s string) labels.Selector {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	tests := []struct {
		name string
		got  []*corev1.ConfigMap
		want []string
	}{
		{"all", l.List(nil), []string{"a/x", "a/y", "b/x", "cluster"}},
		{"everything selector", l.List(labels.Everything()), []string{"a/x", "a/y", "b/x", "cluster"}},
		{"app=web", l.List(sel("app=web")), []string{"a/x", "b/x"}},
		{"app in (web,db),tier", l.List(sel("app in (web,db),tier")), []string{"a/x"}},
		{"!app", l.List(sel("!app")), []string{"cluster"}},
		{"namespace a", l.Namespace("a").List(nil), []string{"a/x", "a/y"}},
		{"namespace a, app!=web", l.Namespace("a").List(sel("app!=web")), []string{"a/y"}},
		{"namespace c", l.Namespace("c").List(nil), nil},
	}
	for _, tt := range tests {
		eq(t, tt.name, names(tt.got), tt.want)
	}
	for _, tt := range []struct {
		ns, name string
		ok       bool
	}{{"a", "x", true}, {"b", "y", false}, {"", "cluster", true}} {
		if _, ok := l.Namespace(tt.ns).Get(tt.name); ok != tt.ok {
			t.Errorf("Namespace(%q).Get(%q) found %v, want %v", tt.ns, tt.name, ok, tt.ok)
		}
	}
	if _, ok := l.Get("cluster"); !ok {
		t.Error("Get(cluster) not found")
	}
}

func TestStoreListingDropsUnlisted(t *testing.T) { forms(t, testStoreListingDropsUnlisted) }

func testStoreListingDropsUnlisted(t *testing.T, compact bool) {
	s := testStore(t, compact)
	s.beginListing()
	s.upsert("a/x", labelled("a", "x", map[string]string{"app": "web"}))
	s.upsert("c/new", cm("c", "new", "1"))
	var gone []string
	s.endListing(func(key string, _ stored[*corev1.ConfigMap]) { gone = append(gone, key) })
	slices.Sort(gone)
	eq(t, "gone", gone, []string{"a/y", "b/x", "cluster"})
	eq(t, "kept", names(s.List()), []string{"a/x", "c/new"})
	got, _ := s.ByIndex("app", "db")
	eq(t, "index after listing", names(got), nil)
}

func TestStoreSameVersionKeepsObject(t *testing.T) {
	s := NewStore(StoreOptions[*corev1.ConfigMap]{})
	first := cm("a", "x", "5")
	s.Upsert(first)
	_, _, existed, same := s.upsert("a/x", cm("a", "x", "5"))
	if !existed || !same {
		t.Errorf("same version: existed %v same %v", existed, same)
	}
	if got, _ := s.Get("a/x"); got != first {
		t.Error("the held object was replaced by an equal one")
	}
	if _, _, _, same := s.upsert("a/x", cm("a", "x", "6")); same {
		t.Error("a new version counted as the same")
	}
}

func TestStoreCheckedMode(t *testing.T) {
	var found []error
	s := NewStore(StoreOptions[*corev1.ConfigMap]{CheckMutations: true, OnMutation: func(err error) { found = append(found, err) }})
	s.Upsert(cm("a", "x", "1", "k", "v"))
	s.Upsert(cm("a", "y", "1", "k", "v"))
	got, _ := s.Get("a/x")
	got.Data["k"] = "changed" // a reader breaks the rule
	s.Verify()
	if len(found) != 1 {
		t.Fatalf("found %v, want one mutation", found)
	}
	var me *MutationError
	if !errors.As(found[0], &me) || me.Key != "a/x" {
		t.Errorf("found %v", found[0])
	}
	// Replacing it reports it again: the check runs on every write.
	s.Upsert(cm("a", "x", "2"))
	if len(found) != 2 {
		t.Errorf("replace did not check: %v", found)
	}
}

func TestKey(t *testing.T) {
	for _, tt := range []struct{ ns, name, key string }{{"a", "x", "a/x"}, {"", "x", "x"}} {
		if got := Key(cm(tt.ns, tt.name, "")); got != tt.key {
			t.Errorf("Key = %q, want %q", got, tt.key)
		}
		if ns, name := SplitKey(tt.key); ns != tt.ns || name != tt.name {
			t.Errorf("SplitKey(%q) = %q, %q", tt.key, ns, name)
		}
	}
}
