package discovery

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apidiscoveryv2beta1 "k8s.io/api/apidiscovery/v2beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

const widgetsOwner = "widgets.example.com"

// testResources is a registry independent of the built-in set: a core
// group, a group with three versions (one resource only in the alpha
// one) and a group with one.
func testResources() []*registry.Resource {
	job := func(v string) *registry.Resource {
		return &registry.Resource{
			Group: "batch.example.io", Version: v, Kind: "Job", ListKind: "JobList",
			Plural: "jobs", Singular: "job", Namespaced: true,
			Categories: []string{"all"}, StatusSubresource: true,
		}
	}
	return []*registry.Resource{
		{
			Version: "v1", Kind: "Namespace", ListKind: "NamespaceList",
			Plural: "namespaces", Singular: "namespace", ShortNames: []string{"ns"},
			StatusSubresource: true, Typed: true,
		},
		{
			Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
			Plural: "configmaps", Singular: "configmap", ShortNames: []string{"cm"},
			Namespaced: true, Typed: true,
		},
		job("v1beta1"), job("v1"),
		{
			Group: "batch.example.io", Version: "v2alpha1", Kind: "CronJob", ListKind: "CronJobList",
			Plural: "cronjobs", Singular: "cronjob", Namespaced: true,
		},
		{
			Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", ListKind: "LeaseList",
			Plural: "leases", Singular: "lease", Namespaced: true,
		},
	}
}

func widgets(versions ...string) []*registry.Resource {
	var out []*registry.Resource
	for _, v := range versions {
		out = append(out, &registry.Resource{
			Group: "example.com", Version: v, Kind: "Widget", ListKind: "WidgetList",
			Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"},
			Categories: []string{"all", "toys"}, Namespaced: true, StatusSubresource: true,
		})
	}
	return out
}

var (
	wantVerbs       = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	wantStatusVerbs = metav1.Verbs{"get", "patch", "update"}
)

func gvd(group, version string) metav1.GroupVersionForDiscovery {
	if group == "" {
		return metav1.GroupVersionForDiscovery{GroupVersion: version, Version: version}
	}
	return metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + version, Version: version}
}

func apiGroup(name string, versions ...string) metav1.APIGroup {
	g := metav1.APIGroup{Name: name}
	for _, v := range versions {
		g.Versions = append(g.Versions, gvd(name, v))
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// Expected legacy (unaggregated) resource lists, as /api/v1 and
// /apis/<g>/<v> serve them and client-go decodes them.
func legacyLists(withWidgets bool) []metav1.APIResourceList {
	job := []metav1.APIResource{
		{Name: "jobs", SingularName: "job", Namespaced: true, Kind: "Job", Verbs: wantVerbs, Categories: []string{"all"}},
		{Name: "jobs/status", Namespaced: true, Kind: "Job", Verbs: wantStatusVerbs},
	}
	lists := []metav1.APIResourceList{
		{GroupVersion: "batch.example.io/v1", APIResources: job},
		{GroupVersion: "batch.example.io/v1beta1", APIResources: job},
		{GroupVersion: "batch.example.io/v2alpha1", APIResources: []metav1.APIResource{
			{Name: "cronjobs", SingularName: "cronjob", Namespaced: true, Kind: "CronJob", Verbs: wantVerbs},
		}},
		{GroupVersion: "coordination.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "leases", SingularName: "lease", Namespaced: true, Kind: "Lease", Verbs: wantVerbs},
		}},
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			// The hashes are the ones kube-apiserver serves for
			// core/v1 ConfigMap and Namespace.
			{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", Verbs: wantVerbs, ShortNames: []string{"cm"}, StorageVersionHash: "qFsyl6wFWjQ="},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: wantVerbs, ShortNames: []string{"ns"}, StorageVersionHash: "Q3oi5N2YM8M="},
			{Name: "namespaces/status", Kind: "Namespace", Verbs: wantStatusVerbs},
		}},
	}
	if withWidgets {
		lists = append(lists, metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: wantVerbs, ShortNames: []string{"wd"}, Categories: []string{"all", "toys"}},
			{Name: "widgets/status", Namespaced: true, Kind: "Widget", Verbs: wantStatusVerbs},
		}})
	}
	return sortLists(lists)
}

// aggregatedView is how client-go turns aggregated discovery into
// APIResources (client-go discovery/aggregated_discovery.go,
// convertAPIResource and convertAPISubresource): group and version come
// from responseKind, a subresource takes its parent's singular name, and
// there is no storageVersionHash in the aggregated format.
func aggregatedView(lists []metav1.APIResourceList) []metav1.APIResourceList {
	var out []metav1.APIResourceList
	for _, l := range lists {
		group, version, ok := strings.Cut(l.GroupVersion, "/")
		if !ok {
			group, version = "", l.GroupVersion
		}
		nl := metav1.APIResourceList{GroupVersion: l.GroupVersion}
		singular := map[string]string{}
		for _, r := range l.APIResources {
			// A subresource of another kind (pods/eviction) names
			// its group and version in both documents.
			if r.Group == "" && r.Version == "" {
				r.Group, r.Version = group, version
			}
			r.StorageVersionHash = ""
			if parent, _, sub := strings.Cut(r.Name, "/"); sub {
				r.SingularName = singular[parent]
			} else {
				singular[r.Name] = r.SingularName
			}
			nl.APIResources = append(nl.APIResources, r)
		}
		out = append(out, nl)
	}
	return out
}

// sortLists orders lists by group/version and resources by name, and
// drops empty lists, so results that come out of client-go maps compare.
func sortLists(lists []metav1.APIResourceList) []metav1.APIResourceList {
	out := []metav1.APIResourceList{}
	for _, l := range lists {
		if len(l.APIResources) == 0 {
			continue
		}
		l.APIResources = slices.Clone(l.APIResources)
		slices.SortFunc(l.APIResources, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b metav1.APIResourceList) int { return strings.Compare(a.GroupVersion, b.GroupVersion) })
	return out
}

func derefLists(lists []*metav1.APIResourceList) []metav1.APIResourceList {
	var out []metav1.APIResourceList
	for _, l := range lists {
		out = append(out, metav1.APIResourceList{GroupVersion: l.GroupVersion, APIResources: l.APIResources})
	}
	return sortLists(out)
}

func derefGroups(groups []*metav1.APIGroup) []metav1.APIGroup {
	var out []metav1.APIGroup
	for _, g := range groups {
		out = append(out, *g)
	}
	return out
}

func diff(got, want any) string {
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	return fmt.Sprintf("got  %s\nwant %s", g, w)
}

// pathLog records which paths a server was asked for and the Content-Type
// of each answer.
type pathLog struct {
	mu           sync.Mutex
	paths        []string
	contentTypes map[string]string
}

func (l *pathLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paths, l.contentTypes = nil, map[string]string{}
}

func (l *pathLog) get() ([]string, map[string]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	paths := slices.Clone(l.paths)
	slices.Sort(paths)
	return slices.Compact(paths), l.contentTypes
}

func serve(t *testing.T, reg *registry.Registry) (*httptest.Server, *pathLog) {
	t.Helper()
	log := &pathLog{contentTypes: map[string]string{}}
	h := New(reg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !Match(r.URL.Path) {
			t.Errorf("client asked for non-discovery path %s", r.URL.Path)
		}
		h.ServeHTTP(w, r)
		log.mu.Lock()
		log.paths = append(log.paths, r.URL.Path)
		log.contentTypes[r.URL.Path] = w.Header().Get("Content-Type")
		log.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, log
}

func client(t *testing.T, srv *httptest.Server, legacy bool) *discovery.DiscoveryClient {
	t.Helper()
	c, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	c.UseLegacyDiscovery = legacy
	return c
}

func TestClientGoDiscovery(t *testing.T) {
	wantGroups := []metav1.APIGroup{
		apiGroup("", "v1"),
		apiGroup("batch.example.io", "v1", "v1beta1", "v2alpha1"),
		apiGroup("coordination.k8s.io", "v1"),
	}
	wantPreferred := sortLists([]metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", Verbs: wantVerbs, ShortNames: []string{"cm"}, StorageVersionHash: "qFsyl6wFWjQ="},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: wantVerbs, ShortNames: []string{"ns"}, StorageVersionHash: "Q3oi5N2YM8M="},
		}},
		{GroupVersion: "batch.example.io/v1", APIResources: []metav1.APIResource{
			{Name: "jobs", SingularName: "job", Namespaced: true, Kind: "Job", Verbs: wantVerbs, Categories: []string{"all"}},
		}},
		// Served only in a non-preferred version.
		{GroupVersion: "batch.example.io/v2alpha1", APIResources: []metav1.APIResource{
			{Name: "cronjobs", SingularName: "cronjob", Namespaced: true, Kind: "CronJob", Verbs: wantVerbs},
		}},
		{GroupVersion: "coordination.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "leases", SingularName: "lease", Namespaced: true, Kind: "Lease", Verbs: wantVerbs},
		}},
	})
	tests := []struct {
		name          string
		legacy        bool
		wantLists     []metav1.APIResourceList
		wantPreferred []metav1.APIResourceList
		wantPaths     []string
		// Content-Type of the /api and /apis answers.
		wantRootType string
	}{
		{
			name:          "aggregated",
			wantLists:     aggregatedView(legacyLists(false)),
			wantPreferred: aggregatedView(wantPreferred),
			// Everything comes from the two aggregated documents.
			wantPaths:    []string{"/api", "/apis"},
			wantRootType: discovery.AcceptV2,
		},
		{
			name:          "legacy",
			legacy:        true,
			wantLists:     legacyLists(false),
			wantPreferred: wantPreferred,
			wantPaths: []string{
				"/api", "/api/v1", "/apis",
				"/apis/batch.example.io/v1", "/apis/batch.example.io/v1beta1", "/apis/batch.example.io/v2alpha1",
				"/apis/coordination.k8s.io/v1",
			},
			wantRootType: "application/json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, log := serve(t, registry.New(testResources()...))
			c := client(t, srv, tt.legacy)

			groups, lists, err := c.ServerGroupsAndResources()
			if err != nil {
				t.Fatalf("ServerGroupsAndResources: %v", err)
			}
			if got := derefGroups(groups); !reflect.DeepEqual(got, wantGroups) {
				t.Errorf("groups:\n%s", diff(got, wantGroups))
			}
			if got := derefLists(lists); !reflect.DeepEqual(got, tt.wantLists) {
				t.Errorf("resources:\n%s", diff(got, tt.wantLists))
			}
			paths, types := log.get()
			if !reflect.DeepEqual(paths, tt.wantPaths) {
				t.Errorf("requested paths:\n%s", diff(paths, tt.wantPaths))
			}
			for _, p := range []string{"/api", "/apis"} {
				if types[p] != tt.wantRootType {
					t.Errorf("%s Content-Type = %q, want %q", p, types[p], tt.wantRootType)
				}
			}

			log.reset()
			preferred, err := c.ServerPreferredResources()
			if err != nil {
				t.Fatalf("ServerPreferredResources: %v", err)
			}
			if got := derefLists(preferred); !reflect.DeepEqual(got, tt.wantPreferred) {
				t.Errorf("preferred resources:\n%s", diff(got, tt.wantPreferred))
			}
			if paths, _ := log.get(); !reflect.DeepEqual(paths, tt.wantPaths) {
				t.Errorf("requested paths:\n%s", diff(paths, tt.wantPaths))
			}

			// Per-version lookups always use the unaggregated documents.
			got, err := c.ServerResourcesForGroupVersion("batch.example.io/v2alpha1")
			if err != nil {
				t.Fatalf("ServerResourcesForGroupVersion: %v", err)
			}
			want := legacyLists(false)[2]
			if got.GroupVersion != want.GroupVersion || !reflect.DeepEqual(got.APIResources, want.APIResources) {
				t.Errorf("ServerResourcesForGroupVersion:\n%s", diff(got, want))
			}
		})
	}
}

// TestBuiltinRegistry serves the real built-in resources and checks both
// discovery modes agree and include the status subresources.
func TestBuiltinRegistry(t *testing.T) {
	srv, _ := serve(t, registry.New(registry.Builtin()...))
	var results [2][]metav1.APIResourceList
	for i, legacy := range []bool{false, true} {
		_, lists, err := client(t, srv, legacy).ServerGroupsAndResources()
		if err != nil {
			t.Fatalf("legacy=%v: %v", legacy, err)
		}
		results[i] = derefLists(lists)
	}
	aggregated, legacy := results[0], results[1]
	if want := aggregatedView(legacy); !reflect.DeepEqual(aggregated, want) {
		t.Errorf("aggregated and legacy discovery disagree:\n%s", diff(aggregated, want))
	}
	names := map[string]metav1.APIResource{}
	for _, l := range legacy {
		for _, r := range l.APIResources {
			names[l.GroupVersion+" "+r.Name] = r
		}
	}
	for _, tt := range []struct {
		name      string
		wantVerbs metav1.Verbs
	}{
		// kube-apiserver serves no deletecollection of namespaces.
		{"v1 namespaces", metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{"v1 namespaces/status", wantStatusVerbs},
		{"v1 configmaps", wantVerbs},
		{"events.k8s.io/v1 events", wantVerbs},
		{"apiextensions.k8s.io/v1 customresourcedefinitions", wantVerbs},
		{"apiextensions.k8s.io/v1 customresourcedefinitions/status", wantStatusVerbs},
	} {
		r, ok := names[tt.name]
		if !ok {
			t.Errorf("%s not served", tt.name)
			continue
		}
		if !reflect.DeepEqual(r.Verbs, tt.wantVerbs) {
			t.Errorf("%s verbs = %v, want %v", tt.name, r.Verbs, tt.wantVerbs)
		}
	}
	if _, ok := names["v1 configmaps/status"]; ok {
		t.Error("configmaps/status served, but ConfigMaps have no status subresource")
	}
}

// get performs a GET against srv and returns status, headers and body.
func get(t *testing.T, url, accept string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

const notFoundBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`

func groupNames(t *testing.T, body []byte) []string {
	t.Helper()
	var list metav1.APIGroupList
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("decoding APIGroupList: %v", err)
	}
	names := []string{}
	for _, g := range list.Groups {
		names = append(names, g.Name)
	}
	return names
}

func TestCRDLifecycle(t *testing.T) {
	reg := registry.New(testResources()...)
	srv, _ := serve(t, reg)
	c := client(t, srv, false)

	widgetV1 := []metav1.APIResource{
		{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: wantVerbs, ShortNames: []string{"wd"}, Categories: []string{"all", "toys"}},
		{Name: "widgets/status", Namespaced: true, Kind: "Widget", Verbs: wantStatusVerbs},
	}
	steps := []struct {
		name   string
		change func()
		// wantVersions are example.com's versions in /apis, nil when
		// the group is not served.
		wantVersions []string
	}{
		{name: "before", change: func() {}},
		{
			name:         "created",
			change:       func() { reg.SetOwned(widgetsOwner, widgets("v1")) },
			wantVersions: []string{"v1"},
		},
		{
			name:         "new version",
			change:       func() { reg.SetOwned(widgetsOwner, widgets("v1alpha1", "v1")) },
			wantVersions: []string{"v1", "v1alpha1"},
		},
		{
			name:   "deleted",
			change: func() { reg.SetOwned(widgetsOwner, nil) },
		},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.change()
			served := step.wantVersions != nil

			// Aggregated discovery through client-go.
			groups, lists, err := c.ServerGroupsAndResources()
			if err != nil {
				t.Fatalf("ServerGroupsAndResources: %v", err)
			}
			var gotGroup *metav1.APIGroup
			for _, g := range groups {
				if g.Name == "example.com" {
					gotGroup = g
				}
			}
			if served {
				want := apiGroup("example.com", step.wantVersions...)
				if gotGroup == nil || !reflect.DeepEqual(*gotGroup, want) {
					t.Errorf("example.com group:\n%s", diff(gotGroup, want))
				}
			} else if gotGroup != nil {
				t.Errorf("example.com still discovered: %+v", gotGroup)
			}
			byGV := map[string][]metav1.APIResource{}
			for _, l := range derefLists(lists) {
				byGV[l.GroupVersion] = l.APIResources
			}
			for _, v := range step.wantVersions {
				want := aggregatedView([]metav1.APIResourceList{{GroupVersion: "example.com/" + v, APIResources: widgetV1}})[0]
				if got := byGV["example.com/"+v]; !reflect.DeepEqual(got, want.APIResources) {
					t.Errorf("example.com/%s resources:\n%s", v, diff(got, want.APIResources))
				}
			}
			for gv := range byGV {
				if strings.HasPrefix(gv, "example.com/") && !slices.Contains(step.wantVersions, strings.TrimPrefix(gv, "example.com/")) {
					t.Errorf("%s still discovered", gv)
				}
			}

			// Legacy documents with plain GETs.
			wantNames := []string{"batch.example.io", "coordination.k8s.io"}
			if served {
				wantNames = []string{"batch.example.io", "coordination.k8s.io", "example.com"}
			}
			code, _, body := get(t, srv.URL+"/apis", "application/json")
			if code != http.StatusOK {
				t.Fatalf("/apis: %d %s", code, body)
			}
			if got := groupNames(t, body); !reflect.DeepEqual(got, wantNames) {
				t.Errorf("/apis groups:\n%s", diff(got, wantNames))
			}
			for _, path := range []string{"/apis/example.com", "/apis/example.com/v1"} {
				code, _, body := get(t, srv.URL+path, "application/json")
				switch {
				case served && code != http.StatusOK:
					t.Errorf("%s: %d %s", path, code, body)
				case !served && (code != http.StatusNotFound || string(body) != notFoundBody):
					t.Errorf("%s: %d %s, want 404 %s", path, code, body, notFoundBody)
				}
			}
			got, err := c.ServerResourcesForGroupVersion("example.com/v1")
			switch {
			case served && err != nil:
				t.Errorf("ServerResourcesForGroupVersion: %v", err)
			case served && !reflect.DeepEqual(got.APIResources, widgetV1):
				t.Errorf("ServerResourcesForGroupVersion:\n%s", diff(got.APIResources, widgetV1))
			case !served && !apierrors.IsNotFound(err):
				t.Errorf("ServerResourcesForGroupVersion after delete: %v, want NotFound", err)
			}
		})
	}
}

func TestLegacyDocuments(t *testing.T) {
	h := New(registry.New(testResources()...))
	tests := []struct {
		path string
		// want is decoded from the body into a value of want's type.
		want any
		// wantRaw, when set, is the exact body.
		wantRaw string
	}{
		{
			path: "/api",
			want: &metav1.APIVersions{
				TypeMeta: metav1.TypeMeta{Kind: "APIVersions", APIVersion: "v1"},
				Versions: []string{"v1"},
				ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
					{ClientCIDR: "0.0.0.0/0", ServerAddress: "setpoint.test:6443"},
				},
			},
			wantRaw: `{"kind":"APIVersions","apiVersion":"v1","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"setpoint.test:6443"}]}`,
		},
		{
			path: "/apis",
			want: &metav1.APIGroupList{
				TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
				Groups: []metav1.APIGroup{
					apiGroup("batch.example.io", "v1", "v1beta1", "v2alpha1"),
					apiGroup("coordination.k8s.io", "v1"),
				},
			},
		},
		{
			path:    "/apis/coordination.k8s.io",
			wantRaw: `{"kind":"APIGroup","apiVersion":"v1","name":"coordination.k8s.io","versions":[{"groupVersion":"coordination.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}}`,
		},
		{
			path: "/apis/batch.example.io/",
			want: func() *metav1.APIGroup {
				g := apiGroup("batch.example.io", "v1", "v1beta1", "v2alpha1")
				g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
				return &g
			}(),
		},
		{
			path: "/api/v1",
			want: &metav1.APIResourceList{
				TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
				GroupVersion: "v1",
				APIResources: legacyLists(false)[4].APIResources,
			},
		},
		{
			path: "/apis/batch.example.io/v1beta1",
			want: &metav1.APIResourceList{
				TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
				GroupVersion: "batch.example.io/v1beta1",
				APIResources: legacyLists(false)[1].APIResources,
			},
		},
		{
			path:    "/apis/coordination.k8s.io/v1",
			wantRaw: `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"coordination.k8s.io/v1","resources":[{"name":"leases","singularName":"lease","namespaced":true,"kind":"Lease","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			req.Host = "setpoint.test:6443"
			req.Header.Set("Accept", "application/json, */*")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if tt.want != nil {
				got := reflect.New(reflect.TypeOf(tt.want).Elem()).Interface()
				if err := json.Unmarshal(rec.Body.Bytes(), got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("body:\n%s", diff(got, tt.want))
				}
			}
			if tt.wantRaw != "" && rec.Body.String() != tt.wantRaw {
				t.Errorf("body:\ngot  %s\nwant %s", rec.Body, tt.wantRaw)
			}
		})
	}
}

func TestAggregatedDocuments(t *testing.T) {
	reg := registry.New(testResources()...)
	reg.SetOwned(widgetsOwner, widgets("v1"))
	h := New(reg)

	gvk := func(g, v, k string) *metav1.GroupVersionKind {
		return &metav1.GroupVersionKind{Group: g, Version: v, Kind: k}
	}
	job := func(v string) apidiscoveryv2.APIVersionDiscovery {
		return apidiscoveryv2.APIVersionDiscovery{
			Version: v, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			Resources: []apidiscoveryv2.APIResourceDiscovery{{
				Resource: "jobs", ResponseKind: gvk("batch.example.io", v, "Job"),
				Scope: apidiscoveryv2.ScopeNamespace, SingularResource: "job",
				Verbs: wantVerbs, Categories: []string{"all"},
				Subresources: []apidiscoveryv2.APISubresourceDiscovery{{
					Subresource: "status", ResponseKind: gvk("batch.example.io", v, "Job"), Verbs: wantStatusVerbs,
				}},
			}},
		}
	}
	listMeta := metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}
	wantCore := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: listMeta,
		Items: []apidiscoveryv2.APIGroupDiscovery{{
			Versions: []apidiscoveryv2.APIVersionDiscovery{{
				Version: "v1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
				Resources: []apidiscoveryv2.APIResourceDiscovery{
					{
						Resource: "configmaps", ResponseKind: gvk("", "v1", "ConfigMap"),
						Scope: apidiscoveryv2.ScopeNamespace, SingularResource: "configmap",
						Verbs: wantVerbs, ShortNames: []string{"cm"},
					},
					{
						Resource: "namespaces", ResponseKind: gvk("", "v1", "Namespace"),
						Scope: apidiscoveryv2.ScopeCluster, SingularResource: "namespace",
						Verbs: wantVerbs, ShortNames: []string{"ns"},
						Subresources: []apidiscoveryv2.APISubresourceDiscovery{{
							Subresource: "status", ResponseKind: gvk("", "v1", "Namespace"), Verbs: wantStatusVerbs,
						}},
					},
				},
			}},
		}},
	}
	wantAPIs := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: listMeta,
		Items: []apidiscoveryv2.APIGroupDiscovery{
			{
				ObjectMeta: metav1.ObjectMeta{Name: "batch.example.io"},
				Versions: []apidiscoveryv2.APIVersionDiscovery{
					job("v1"), job("v1beta1"),
					{
						Version: "v2alpha1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
						Resources: []apidiscoveryv2.APIResourceDiscovery{{
							Resource: "cronjobs", ResponseKind: gvk("batch.example.io", "v2alpha1", "CronJob"),
							Scope: apidiscoveryv2.ScopeNamespace, SingularResource: "cronjob", Verbs: wantVerbs,
						}},
					},
				},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "coordination.k8s.io"},
				Versions: []apidiscoveryv2.APIVersionDiscovery{{
					Version: "v1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
					Resources: []apidiscoveryv2.APIResourceDiscovery{{
						Resource: "leases", ResponseKind: gvk("coordination.k8s.io", "v1", "Lease"),
						Scope: apidiscoveryv2.ScopeNamespace, SingularResource: "lease", Verbs: wantVerbs,
					}},
				}},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "example.com"},
				Versions: []apidiscoveryv2.APIVersionDiscovery{{
					Version: "v1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
					Resources: []apidiscoveryv2.APIResourceDiscovery{{
						Resource: "widgets", ResponseKind: gvk("example.com", "v1", "Widget"),
						Scope: apidiscoveryv2.ScopeNamespace, SingularResource: "widget",
						Verbs: wantVerbs, ShortNames: []string{"wd"}, Categories: []string{"all", "toys"},
						Subresources: []apidiscoveryv2.APISubresourceDiscovery{{
							Subresource: "status", ResponseKind: gvk("example.com", "v1", "Widget"), Verbs: wantStatusVerbs,
						}},
					}},
				}},
			},
		},
	}
	// v2beta1 carries the same content under its own apiVersion.
	toBeta := func(l *apidiscoveryv2.APIGroupDiscoveryList) *apidiscoveryv2beta1.APIGroupDiscoveryList {
		b, _ := json.Marshal(l)
		out := &apidiscoveryv2beta1.APIGroupDiscoveryList{}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
		out.APIVersion = "apidiscovery.k8s.io/v2beta1"
		return out
	}
	const v2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	tests := []struct {
		path, accept    string
		wantContentType string
		want            any
	}{
		{"/api", discovery.AcceptV2, discovery.AcceptV2, wantCore},
		{"/apis", discovery.AcceptV2, discovery.AcceptV2, wantAPIs},
		{"/api", v2beta1, v2beta1, toBeta(wantCore)},
		{"/apis", v2beta1 + ",application/json", v2beta1, toBeta(wantAPIs)},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.accept, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			req.Header.Set("Accept", tt.accept)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			for k, want := range map[string]string{"Content-Type": tt.wantContentType, "Vary": "Accept", "Cache-Control": "public"} {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if etag := rec.Header().Get("ETag"); len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' {
				t.Errorf("ETag = %q, want a quoted hash", etag)
			}
			got := reflect.New(reflect.TypeOf(tt.want).Elem()).Interface()
			if err := json.Unmarshal(rec.Body.Bytes(), got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("body:\n%s", diff(got, tt.want))
			}
			// client-go recognises the answer by its Content-Type.
			gvk := apidiscoveryv2.SchemeGroupVersion.WithKind("APIGroupDiscoveryList")
			isV2, err := discovery.ContentTypeIsGVK(rec.Header().Get("Content-Type"), gvk)
			if err != nil || isV2 != (tt.wantContentType == discovery.AcceptV2) {
				t.Errorf("ContentTypeIsGVK(%q, v2) = %v, %v", rec.Header().Get("Content-Type"), isV2, err)
			}
		})
	}
}

func TestNegotiation(t *testing.T) {
	const (
		v2       = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		v2beta1  = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
		v2Proto  = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		plain    = "application/json"
		protobuf = "application/vnd.kubernetes.protobuf"
	)
	h := New(registry.New(testResources()...))
	tests := []struct {
		name, path, accept string
		wantCode           int
		wantContentType    string
		// wantKind is the body's kind and apiVersion.
		wantKind string
	}{
		{"no accept", "/apis", "", 200, plain, "v1 APIGroupList"},
		{"json", "/apis", plain, 200, plain, "v1 APIGroupList"},
		{"any", "/api", "*/*", 200, plain, "v1 APIVersions"},
		{"application wildcard", "/apis", "application/*", 200, plain, "v1 APIGroupList"},
		{"client-go default", "/apis", discovery.AcceptV2 + "," + discovery.AcceptV1, 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"client-go default core", "/api", discovery.AcceptV2 + "," + discovery.AcceptV1, 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"client-go nopeer", "/apis", discovery.AcceptV2NoPeer + "," + discovery.AcceptV2 + "," + discovery.AcceptV1, 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"client-go legacy", "/apis", discovery.AcceptV1, 200, plain, "v1 APIGroupList"},
		{"kubectl 1.32", "/apis", v2 + "," + v2beta1 + "," + plain, 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"v2beta1 only", "/api", v2beta1, 200, v2beta1, "apidiscovery.k8s.io/v2beta1 APIGroupDiscoveryList"},
		{"parameter order", "/apis", "application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io", 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"protobuf aggregated first", "/apis", v2Proto + "," + v2 + "," + plain, 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"protobuf then json", "/apis", v2Proto + "," + plain, 200, plain, "v1 APIGroupList"},
		{"protobuf aggregated only", "/apis", v2Proto, 406, plain, "v1 Status"},
		{"protobuf only", "/apis", protobuf, 406, plain, "v1 Status"},
		{"protobuf or anything", "/api/v1", protobuf + ", */*", 200, plain, "v1 APIResourceList"},
		{"q prefers aggregated", "/apis", plain + ";q=0.5, " + v2 + ";q=0.9", 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"q prefers legacy", "/apis", v2 + ";q=0.5, " + plain, 200, plain, "v1 APIGroupList"},
		{"q=0 refuses", "/apis", plain + ";q=0", 406, plain, "v1 Status"},
		{"specific before wildcard", "/apis", "*/*, " + v2, 200, v2, "apidiscovery.k8s.io/v2 APIGroupDiscoveryList"},
		{"unknown aggregated version", "/apis", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", 406, plain, "v1 Status"},
		{"other conversion", "/apis", "application/json;as=Table;g=meta.k8s.io;v=v1", 406, plain, "v1 Status"},
		{"other conversion then json", "/apis", "application/json;as=Table;g=meta.k8s.io;v=v1, application/json", 200, plain, "v1 APIGroupList"},
		{"yaml", "/apis", "application/yaml", 406, plain, "v1 Status"},
		{"aggregated not offered per version", "/api/v1", v2, 406, plain, "v1 Status"},
		{"aggregated not offered per group", "/apis/batch.example.io", v2 + "," + plain, 200, plain, "v1 APIGroup"},
		{"client-go per version", "/apis/batch.example.io/v1", "application/json, */*", 200, plain, "v1 APIResourceList"},
		{"html", "/apis/batch.example.io/v1", "text/html", 406, plain, "v1 Status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantCode {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantCode)
			}
			if ct := rec.Header().Get("Content-Type"); ct != tt.wantContentType {
				t.Errorf("Content-Type = %q, want %q", ct, tt.wantContentType)
			}
			var tm metav1.TypeMeta
			if err := json.Unmarshal(rec.Body.Bytes(), &tm); err != nil {
				t.Fatalf("body %s: %v", rec.Body, err)
			}
			if got := tm.APIVersion + " " + tm.Kind; got != tt.wantKind {
				t.Errorf("body is %s, want %s", got, tt.wantKind)
			}
			root := tt.path == "/api" || tt.path == "/apis"
			if vary := rec.Header().Get("Vary"); root && vary != "Accept" {
				t.Errorf("Vary = %q, want Accept", vary)
			}
		})
	}
}

func TestNotAcceptableBody(t *testing.T) {
	h := New(registry.New(testResources()...))
	req := httptest.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var got metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message: "only the following media types are accepted: application/json, " +
			"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, " +
			"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
		Reason: metav1.StatusReasonNotAcceptable,
		Code:   http.StatusNotAcceptable,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("406 body:\n%s", diff(got, want))
	}
}

func TestNotFound(t *testing.T) {
	h := New(registry.New(testResources()...))
	tests := []struct {
		method, path string
		wantCode     int
		wantBody     string
	}{
		{"GET", "/apis/nope.example.io", 404, notFoundBody},
		{"GET", "/apis/nope.example.io/v1", 404, notFoundBody},
		{"GET", "/apis/batch.example.io/v9", 404, notFoundBody},
		{"GET", "/apis/v1", 404, notFoundBody},
		{"GET", "/api/v2", 404, notFoundBody},
		{"GET", "/api/v1/namespaces", 404, notFoundBody},
		{"GET", "/healthz", 404, notFoundBody},
		{"POST", "/apis", 405, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tt.method, tt.path, nil)
			req.Header.Set("Accept", "application/json")
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantCode || rec.Body.String() != tt.wantBody {
				t.Errorf("got %d %s\nwant %d %s", rec.Code, rec.Body, tt.wantCode, tt.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
	// The 404 reaches client-go as a NotFound error.
	srv, _ := serve(t, registry.New(testResources()...))
	_, err := client(t, srv, false).ServerResourcesForGroupVersion("nope.example.io/v1")
	if !apierrors.IsNotFound(err) {
		t.Errorf("client-go error = %v, want NotFound", err)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/api", true},
		{"/api/", true},
		{"/api/v1", true},
		{"/api/v1/", true},
		{"/apis", true},
		{"/apis/", true},
		{"/apis/apps", true},
		{"/apis/example.com/v1", true},
		{"/apis/example.com/v1/", true},
		{"/api/v1/namespaces", false},
		{"/api/v1/namespaces/default/configmaps", false},
		{"/apis/example.com/v1/widgets", false},
		{"/apis//v1", false},
		{"/api//", false},
		{"/apis/example.com/v1//", false},
		{"/", false},
		{"", false},
		{"api", false},
		{"/apix", false},
		{"/version", false},
		{"/openapi/v2", false},
	}
	for _, tt := range tests {
		if got := Match(tt.path); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestETag(t *testing.T) {
	reg := registry.New(testResources()...)
	srv, _ := serve(t, reg)
	_, h0, body0 := get(t, srv.URL+"/apis", discovery.AcceptV2)
	etag0 := h0.Get("ETag")
	_, h0beta, _ := get(t, srv.URL+"/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
	_, h0core, _ := get(t, srv.URL+"/api", discovery.AcceptV2)
	if etag0 == "" || etag0 == h0beta.Get("ETag") || etag0 == h0core.Get("ETag") {
		t.Fatalf("ETags must be set and differ by document: /apis %q, v2beta1 %q, /api %q", etag0, h0beta.Get("ETag"), h0core.Get("ETag"))
	}

	tests := []struct {
		name        string
		change      func()
		ifNoneMatch string
		wantCode    int
		wantSame    bool // the ETag is etag0
	}{
		{name: "matching", ifNoneMatch: etag0, wantCode: 304, wantSame: true},
		{name: "weak", ifNoneMatch: "W/" + etag0, wantCode: 304, wantSame: true},
		{name: "in a list", ifNoneMatch: `"other", ` + etag0, wantCode: 304, wantSame: true},
		{name: "star", ifNoneMatch: "*", wantCode: 304, wantSame: true},
		{name: "other", ifNoneMatch: `"other"`, wantCode: 200, wantSame: true},
		{name: "unquoted", ifNoneMatch: strings.Trim(etag0, `"`), wantCode: 200, wantSame: true},
		{name: "none", wantCode: 200, wantSame: true},
		{
			name:        "after CRD created",
			change:      func() { reg.SetOwned(widgetsOwner, widgets("v1")) },
			ifNoneMatch: etag0, wantCode: 200,
		},
		{
			name:        "after CRD deleted",
			change:      func() { reg.SetOwned(widgetsOwner, nil) },
			ifNoneMatch: etag0, wantCode: 304, wantSame: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.change != nil {
				tt.change()
			}
			var extra []string
			if tt.ifNoneMatch != "" {
				extra = []string{"If-None-Match", tt.ifNoneMatch}
			}
			code, h, body := get(t, srv.URL+"/apis", discovery.AcceptV2, extra...)
			if code != tt.wantCode {
				t.Fatalf("status %d, want %d", code, tt.wantCode)
			}
			if same := h.Get("ETag") == etag0; same != tt.wantSame {
				t.Errorf("ETag %q, first was %q; want same=%v", h.Get("ETag"), etag0, tt.wantSame)
			}
			if h.Get("Vary") != "Accept" {
				t.Errorf("Vary = %q", h.Get("Vary"))
			}
			switch {
			case code == 304 && len(body) != 0:
				t.Errorf("304 with body %s", body)
			case code == 200 && tt.wantSame && string(body) != string(body0):
				t.Errorf("same ETag, different body")
			case code == 200 && !tt.wantSame && string(body) == string(body0):
				t.Errorf("new ETag, same body")
			}
		})
	}
}

// TestCache checks documents are built once per registry generation.
func TestCache(t *testing.T) {
	reg := registry.New(testResources()...)
	h := New(reg)
	fetch := func() (*snapshot, string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/apis", nil)
		req.Header.Set("Accept", discovery.AcceptV2)
		h.ServeHTTP(rec, req)
		return h.cur.Load(), rec.Body.String()
	}
	s0, b0 := fetch()
	steps := []struct {
		name        string
		change      func()
		wantRebuilt bool
		wantWidgets bool
	}{
		{"unchanged", func() {}, false, false},
		{"CRD created", func() { reg.SetOwned(widgetsOwner, widgets("v1")) }, true, true},
		{"unchanged again", func() {}, false, true},
		// Nothing moves: a conflict with the CRD's own names.
		{"conflicting owner", func() { reg.SetOwned("other", widgets("v1")) }, false, true},
		{"CRD deleted", func() { reg.SetOwned(widgetsOwner, nil) }, true, false},
	}
	prev := s0
	for _, st := range steps {
		st.change()
		s, b := fetch()
		if rebuilt := s != prev; rebuilt != st.wantRebuilt {
			t.Errorf("%s: rebuilt = %v, want %v", st.name, rebuilt, st.wantRebuilt)
		}
		if got := strings.Contains(b, `"widgets"`); got != st.wantWidgets {
			t.Errorf("%s: widgets served = %v, want %v", st.name, got, st.wantWidgets)
		}
		// Served bytes are the cached ones, not a fresh encoding.
		if doc := s.aggregated[formatV2]; b != string(doc.body) {
			t.Errorf("%s: response is not the cached document", st.name)
		}
		prev = s
	}
	if _, b := fetch(); b != b0 {
		t.Errorf("after the CRD came and went the document differs:\n%s\n%s", b, b0)
	}
}

// TestConcurrent serves while CRDs come and go; run with -race.
func TestConcurrent(t *testing.T) {
	reg := registry.New(testResources()...)
	srv, _ := serve(t, reg)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				reg.SetOwned(widgetsOwner, widgets("v1"))
			} else {
				reg.SetOwned(widgetsOwner, nil)
			}
		}
	})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			c := client(t, srv, false)
			for range 20 {
				if _, _, err := c.ServerGroupsAndResources(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	readers.Wait()
	close(stop)
	wg.Wait()

	reg.SetOwned(widgetsOwner, widgets("v1"))
	_, _, body := get(t, srv.URL+"/apis", "")
	if got := groupNames(t, body); !slices.Contains(got, "example.com") {
		t.Errorf("after the last change /apis has %v", got)
	}
}

// TestSubresourceOrder: kube-apiserver lists a built-in kind's
// subresources by name (scale before status, as the oracle does for
// deployments), apiextensions-apiserver a custom resource's status
// first.
func TestSubresourceOrder(t *testing.T) {
	tests := []struct {
		typed bool
		want  []string
	}{
		{true, []string{"scale", "status"}},
		{false, []string{"status", "scale"}},
	}
	for _, tt := range tests {
		r := &registry.Resource{Typed: tt.typed, StatusSubresource: true, Scale: &registry.Scale{}}
		if got := statusAndScale(r); !slices.Equal(got, tt.want) {
			t.Errorf("typed %v: %v, want %v", tt.typed, got, tt.want)
		}
	}
}
