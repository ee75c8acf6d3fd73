package compat_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// aggregatedDiscoveryType is the media type of aggregated discovery v2.
const aggregatedDiscoveryType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// findResource returns the resource named name in group version gv.
func findResource(lists []*metav1.APIResourceList, gv, name string) (metav1.APIResource, bool) {
	for _, l := range lists {
		if l == nil || l.GroupVersion != gv {
			continue
		}
		for _, r := range l.APIResources {
			if r.Name == name {
				return r, true
			}
		}
	}
	return metav1.APIResource{}, false
}

func TestDiscovery(t *testing.T) {
	wantVerbs := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	builtin := []struct {
		gv, name, kind string
		namespaced     bool
		shortNames     []string
		verbs          []string // nil: wantVerbs
	}{
		// kube-apiserver serves no deletecollection of namespaces.
		{"v1", "namespaces", "Namespace", false, []string{"ns"}, []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{"v1", "configmaps", "ConfigMap", true, []string{"cm"}, nil},
		{"v1", "secrets", "Secret", true, nil, nil},
		{"v1", "serviceaccounts", "ServiceAccount", true, []string{"sa"}, nil},
		{"v1", "events", "Event", true, []string{"ev"}, nil},
		{"v1", "pods", "Pod", true, []string{"po"}, nil},
		{"v1", "podtemplates", "PodTemplate", true, nil, nil},
		{"v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, []string{"pvc"}, nil},
		{"v1", "nodes", "Node", false, []string{"no"}, nil},
		{"events.k8s.io/v1", "events", "Event", true, []string{"ev"}, nil},
		{"coordination.k8s.io/v1", "leases", "Lease", true, nil, nil},
		// apps/v1 as the oracle (kube-apiserver v1.33) lists it.
		{"apps/v1", "deployments", "Deployment", true, []string{"deploy"}, nil},
		{"apps/v1", "replicasets", "ReplicaSet", true, []string{"rs"}, nil},
		{"apps/v1", "statefulsets", "StatefulSet", true, []string{"sts"}, nil},
		{"apps/v1", "daemonsets", "DaemonSet", true, []string{"ds"}, nil},
		{"apps/v1", "controllerrevisions", "ControllerRevision", true, nil, nil},
		{"apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", false, []string{"crd", "crds"}, nil},
		{"batch/v1", "jobs", "Job", true, nil, nil},
		{"batch/v1", "cronjobs", "CronJob", true, []string{"cj"}, nil},
		// rbac.authorization.k8s.io/v1 and authorization.k8s.io/v1 as
		// the oracle lists them: the reviews are answered, not stored.
		{"rbac.authorization.k8s.io/v1", "roles", "Role", true, nil, nil},
		{"rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", false, nil, nil},
		{"rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", true, nil, nil},
		{"rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", false, nil, nil},
		{"authorization.k8s.io/v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", true, nil, []string{"create"}},
		{"authorization.k8s.io/v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false, nil, []string{"create"}},
		{"authorization.k8s.io/v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false, nil, []string{"create"}},
		{"authorization.k8s.io/v1", "subjectaccessreviews", "SubjectAccessReview", false, nil, []string{"create"}},
	}
	for _, legacy := range []bool{false, true} {
		name := "aggregated"
		if legacy {
			name = "legacy"
		}
		t.Run(name, func(t *testing.T) {
			srv := apiservertest.Start(t)
			rec := newRecorder(t)
			cfg := rec.wrap(srv.Config)
			dc, err := discovery.NewDiscoveryClientForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			dc.UseLegacyDiscovery = legacy

			v, err := dc.ServerVersion()
			if err != nil {
				t.Fatalf("ServerVersion: %v", err)
			}
			if v.Major == "" || v.Minor == "" || !strings.HasPrefix(v.GitVersion, "v"+v.Major+"."+v.Minor) {
				t.Errorf("ServerVersion: got %+v, want major, minor and a gitVersion v<major>.<minor>...", v)
			}

			groups, lists, err := dc.ServerGroupsAndResources()
			if err != nil {
				t.Fatalf("ServerGroupsAndResources: %v", err)
			}
			var groupNames []string
			for _, g := range groups {
				groupNames = append(groupNames, g.Name)
				if g.PreferredVersion.GroupVersion == "" {
					t.Errorf("group %q has no preferred version", g.Name)
				}
			}
			for _, want := range []string{"", "apiextensions.k8s.io", "coordination.k8s.io", "events.k8s.io"} {
				if !slices.Contains(groupNames, want) {
					t.Errorf("ServerGroupsAndResources: groups %q lack %q", groupNames, want)
				}
			}
			for _, want := range builtin {
				got, ok := findResource(lists, want.gv, want.name)
				if !ok {
					t.Errorf("ServerGroupsAndResources: no %s in %s", want.name, want.gv)
					continue
				}
				verbs := wantVerbs
				if want.verbs != nil {
					verbs = want.verbs
				}
				if got.Kind != want.kind || got.Namespaced != want.namespaced || !slices.Equal([]string(got.Verbs), verbs) {
					t.Errorf("%s %s: got kind %q namespaced %v verbs %v, want %q %v %v", want.gv, want.name, got.Kind, got.Namespaced, got.Verbs, want.kind, want.namespaced, verbs)
				}
				if want.shortNames != nil && !slices.Equal(got.ShortNames, want.shortNames) {
					t.Errorf("%s %s: got shortNames %v, want %v", want.gv, want.name, got.ShortNames, want.shortNames)
				}
			}
			for _, sub := range []struct{ gv, name string }{
				{"v1", "namespaces/status"}, {"apiextensions.k8s.io/v1", "customresourcedefinitions/status"},
				{"v1", "pods/status"}, {"v1", "nodes/status"}, {"v1", "persistentvolumeclaims/status"},
				{"batch/v1", "jobs/status"}, {"batch/v1", "cronjobs/status"},
			} {
				if _, ok := findResource(lists, sub.gv, sub.name); !ok {
					t.Errorf("ServerGroupsAndResources: no subresource %s in %s", sub.name, sub.gv)
				}
			}

			preferred, err := dc.ServerPreferredResources()
			if err != nil {
				t.Fatalf("ServerPreferredResources: %v", err)
			}
			for _, want := range builtin {
				if _, ok := findResource(preferred, want.gv, want.name); !ok {
					t.Errorf("ServerPreferredResources: no %s in %s", want.name, want.gv)
				}
			}
			if _, ok := findResource(preferred, "v1", "namespaces/status"); ok {
				t.Errorf("ServerPreferredResources: lists subresource namespaces/status, want top-level resources only")
			}

			// Prove which discovery the client got.
			aggregated := rec.requests(func(r recordedRequest) bool {
				return (r.URL.Path == "/api" || r.URL.Path == "/apis") && strings.HasPrefix(r.RespType, aggregatedDiscoveryType)
			})
			perGroup := rec.requests(func(r recordedRequest) bool {
				return strings.HasPrefix(r.URL.Path, "/apis/") || strings.HasPrefix(r.URL.Path, "/api/")
			})
			if legacy {
				if len(aggregated) != 0 || len(perGroup) == 0 {
					t.Errorf("legacy discovery: got %d aggregated answers and %d per-group-version requests, want 0 and some", len(aggregated), len(perGroup))
				}
			} else if len(aggregated) == 0 || len(perGroup) != 0 {
				t.Errorf("aggregated discovery: got %d aggregated answers (Content-Type %s) and %d per-group-version requests, want some and 0", len(aggregated), aggregatedDiscoveryType, len(perGroup))
			}
		})
	}
}

// TestDiscoveryFollowsCRDs checks that a CRD's resource appears in
// discovery and in a deferred REST mapper, and disappears when the CRD is
// deleted.
func TestDiscoveryFollowsCRDs(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		name := "aggregated"
		if legacy {
			name = "legacy"
		}
		t.Run(name, func(t *testing.T) {
			srv := startServer(t) // CRD deletion needs the built-in controllers
			rec := newRecorder(t)
			cfg := rec.wrap(srv.Config)
			dyn, err := dynamic.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			newDiscovery := func() *discovery.DiscoveryClient {
				dc, err := discovery.NewDiscoveryClientForConfig(cfg)
				if err != nil {
					t.Fatal(err)
				}
				dc.UseLegacyDiscovery = legacy
				return dc
			}
			cached := memory.NewMemCacheClient(newDiscovery())
			mapper := restmapper.NewDeferredDiscoveryRESTMapper(cached)
			widgetGK := schema.GroupKind{Group: "example.com", Kind: "Widget"}

			// Before the CRD: not in discovery, not mapped.
			if _, lists, err := cached.ServerGroupsAndResources(); err != nil {
				t.Fatal(err)
			} else if _, ok := findResource(lists, "example.com/v1", "widgets"); ok {
				t.Fatalf("widgets in discovery before its CRD exists")
			}
			if _, err := mapper.RESTMapping(widgetGK); !meta.IsNoMatchError(err) {
				t.Fatalf("RESTMapping Widget before its CRD exists: got err %v, want a no-match error", err)
			}

			createCRD(t, dyn, widgets)

			// A fresh client sees it at once.
			_, lists, err := newDiscovery().ServerGroupsAndResources()
			if err != nil {
				t.Fatal(err)
			}
			got, ok := findResource(lists, "example.com/v1", "widgets")
			if !ok {
				t.Fatalf("fresh discovery client: no widgets in example.com/v1 after creating its CRD")
			}
			if got.Kind != "Widget" || !got.Namespaced || got.SingularName != "widget" || !slices.Equal(got.ShortNames, []string{"wd"}) {
				t.Errorf("widgets: got kind %q namespaced %v singular %q shortNames %v, want Widget true widget [wd]", got.Kind, got.Namespaced, got.SingularName, got.ShortNames)
			}
			if _, ok := findResource(lists, "example.com/v1", "widgets/status"); !ok {
				t.Errorf("fresh discovery client: no widgets/status subresource")
			}

			// The cached client sees it after Invalidate; the deferred
			// mapper resets itself on a miss.
			cached.Invalidate()
			if _, lists, err := cached.ServerGroupsAndResources(); err != nil {
				t.Fatal(err)
			} else if _, ok := findResource(lists, "example.com/v1", "widgets"); !ok {
				t.Errorf("cached discovery after Invalidate: no widgets in example.com/v1")
			}
			mapper.Reset()
			mapping, err := mapper.RESTMapping(widgetGK)
			if err != nil {
				t.Fatalf("RESTMapping Widget: %v", err)
			}
			wantGVR := widgets.gvr()
			if mapping.Resource != wantGVR || mapping.Scope.Name() != meta.RESTScopeNameNamespace || mapping.GroupVersionKind != widgets.gvk() {
				t.Errorf("RESTMapping Widget: got %v scope %s gvk %v, want %v namespace %v", mapping.Resource, mapping.Scope.Name(), mapping.GroupVersionKind, wantGVR, widgets.gvk())
			}
			gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: "widgets"})
			if err != nil || gvk != widgets.gvk() {
				t.Errorf("KindFor widgets: got %v (err %v), want %v", gvk, err, widgets.gvk())
			}
			expander := restmapper.NewShortcutExpander(mapper, cached, nil)
			gvr, err := expander.ResourceFor(schema.GroupVersionResource{Resource: "wd"})
			if err != nil || gvr != wantGVR {
				t.Errorf("ResourceFor short name wd: got %v (err %v), want %v", gvr, err, wantGVR)
			}

			deleteCRDAndWait(t, dyn, widgets)

			waitFor(t, "widgets to leave discovery", func() (bool, error) {
				_, lists, err := newDiscovery().ServerGroupsAndResources()
				if err != nil {
					return false, err
				}
				_, ok := findResource(lists, "example.com/v1", "widgets")
				return !ok, fmt.Errorf("still listed")
			})
			cached.Invalidate()
			groups, err := cached.ServerGroups()
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range groups.Groups {
				if g.Name == "example.com" {
					t.Errorf("cached discovery after deleting the only CRD of example.com: group still listed: %+v", g)
				}
			}
			mapper.Reset()
			if _, err := mapper.RESTMapping(widgetGK); !meta.IsNoMatchError(err) {
				t.Errorf("RESTMapping Widget after deleting its CRD: got err %v, want a no-match error", err)
			}
		})
	}
}
