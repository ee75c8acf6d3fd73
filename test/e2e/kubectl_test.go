package e2e_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKubectl drives one server with the kubectl on PATH, one namespace per
// subtest so that the subtests run in parallel.
func TestKubectl(t *testing.T) {
	bin := kubectlPath(t)
	srv := startFreshServer(t)
	kubectlFor := func(t *testing.T) *kubectl { return newKubectl(t, bin, srv) }

	t.Run("version", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		var v struct {
			ServerVersion *struct{ Major, Minor, GitVersion string }
		}
		out := k.ok(t, "version", "-o", "json")
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("kubectl version -o json: %v\n%s", err, out)
		}
		if v.ServerVersion == nil || v.ServerVersion.Major == "" || v.ServerVersion.Minor == "" || !strings.HasPrefix(v.ServerVersion.GitVersion, "v") {
			t.Fatalf("kubectl version -o json: serverVersion %+v, want major, minor and a gitVersion v...\n%s", v.ServerVersion, out)
		}
		if out := k.ok(t, "version"); !strings.Contains(out, "Server Version: "+v.ServerVersion.GitVersion) {
			t.Errorf("kubectl version lacks %q:\n%s", "Server Version: "+v.ServerVersion.GitVersion, out)
		}
	})

	// Most people run kubectl without -n: a cluster always has the
	// namespace "default".
	t.Run("default namespace", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		tb := parseTable(t, k.ok(t, "get", "namespace", "default"))
		if _, ok := tb.row(map[string]string{"NAME": "default", "STATUS": "Active"}); !ok {
			t.Errorf("kubectl get namespace default: %v, want default Active", tb.rows)
		}
		k.ok(t, "create", "configmap", "in-default", "--from-literal=a=1")
		if got := str(k.getJSON(t, "configmap", "in-default"), "metadata.namespace"); got != "default" {
			t.Errorf("namespace %q, want default", got)
		}
	})

	// kube-apiserver refuses to delete the namespaces clients and its
	// own controllers depend on.
	t.Run("protected namespaces", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		for _, ns := range []string{"default", "kube-system", "kube-public"} {
			want := `Error from server (Forbidden): namespaces "` + ns + `" is forbidden: this namespace may not be deleted`
			if got := k.fails(t, "delete", "namespace", ns); !strings.Contains(got, want) {
				t.Errorf("kubectl delete namespace %s: stderr %q, want %q", ns, got, want)
			}
			if got := str(k.getJSON(t, "namespace", ns), "status.phase"); got != "Active" {
				t.Errorf("namespace %s: phase %q after the refused delete, want Active", ns, got)
			}
		}
	})

	t.Run("api-resources", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		tb := parseTable(t, k.ok(t, "api-resources"))
		if want := []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}; !slices.Equal(tb.header, want) {
			t.Fatalf("header %q, want %q", tb.header, want)
		}
		for _, want := range []map[string]string{
			{"NAME": "configmaps", "SHORTNAMES": "cm", "APIVERSION": "v1", "NAMESPACED": "true", "KIND": "ConfigMap"},
			{"NAME": "namespaces", "SHORTNAMES": "ns", "APIVERSION": "v1", "NAMESPACED": "false", "KIND": "Namespace"},
			{"NAME": "secrets", "SHORTNAMES": "", "APIVERSION": "v1", "NAMESPACED": "true", "KIND": "Secret"},
			{"NAME": "serviceaccounts", "SHORTNAMES": "sa", "APIVERSION": "v1", "NAMESPACED": "true", "KIND": "ServiceAccount"},
			{"NAME": "events", "SHORTNAMES": "ev", "APIVERSION": "v1", "NAMESPACED": "true", "KIND": "Event"},
			{"NAME": "events", "SHORTNAMES": "ev", "APIVERSION": "events.k8s.io/v1", "NAMESPACED": "true", "KIND": "Event"},
			{"NAME": "leases", "SHORTNAMES": "", "APIVERSION": "coordination.k8s.io/v1", "NAMESPACED": "true", "KIND": "Lease"},
			{"NAME": "customresourcedefinitions", "SHORTNAMES": "crd,crds", "APIVERSION": "apiextensions.k8s.io/v1", "NAMESPACED": "false", "KIND": "CustomResourceDefinition"},
		} {
			got, ok := tb.row(map[string]string{"NAME": want["NAME"], "APIVERSION": want["APIVERSION"]})
			if !ok {
				t.Errorf("no row for %s %s", want["NAME"], want["APIVERSION"])
				continue
			}
			if !maps.Equal(got, want) {
				t.Errorf("row %v, want %v", got, want)
			}
		}

		if got, want := names(k.ok(t, "api-resources", "--namespaced=false", "-o", "name")), []string{"customresourcedefinitions.apiextensions.k8s.io", "namespaces"}; !isSubset(want, got) {
			t.Errorf("api-resources --namespaced=false -o name = %q, want it to include %q", got, want)
		}
		if got, want := names(k.ok(t, "api-resources", "--api-group=coordination.k8s.io", "-o", "name")), []string{"leases.coordination.k8s.io"}; !slices.Equal(got, want) {
			t.Errorf("api-resources --api-group=coordination.k8s.io -o name = %q, want %q", got, want)
		}
	})

	t.Run("create and get", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-get"
		if got, want := k.ok(t, "create", "namespace", ns), "namespace/"+ns+" created\n"; got != want {
			t.Errorf("kubectl create namespace: %q, want %q", got, want)
		}
		nsTable := parseTable(t, k.ok(t, "get", "namespace", ns))
		if want := []string{"NAME", "STATUS", "AGE"}; !slices.Equal(nsTable.header, want) {
			t.Errorf("get namespace header %q, want %q", nsTable.header, want)
		}
		if _, ok := nsTable.row(map[string]string{"NAME": ns, "STATUS": "Active"}); !ok {
			t.Errorf("get namespace: no row %s Active: %v", ns, nsTable.rows)
		}

		manifest := configMapYAML(ns, "settings", map[string]string{"app": "e2e"}, map[string]string{"color": "blue", "size": "3"})
		if got, want := k.createFile(t, manifest), "configmap/settings created\n"; got != want {
			t.Errorf("kubectl create -f: %q, want %q", got, want)
		}
		// As in kube, the namespace has the CA bundle beside the test's own.
		waitRootCA(t, k, ns)

		// Table output, for one object and for the list.
		for _, tc := range []struct {
			args []string
			want [][2]string // NAME, DATA
		}{
			{[]string{"get", "configmap", "settings", "-n", ns}, [][2]string{{"settings", "2"}}},
			{[]string{"get", "cm", "-n", ns}, [][2]string{{"kube-root-ca.crt", "1"}, {"settings", "2"}}},
			{[]string{"get", "configmaps.v1.", "-n", ns}, [][2]string{{"kube-root-ca.crt", "1"}, {"settings", "2"}}},
		} {
			tb := parseTable(t, k.ok(t, tc.args...))
			if want := []string{"NAME", "DATA", "AGE"}; !slices.Equal(tb.header, want) {
				t.Errorf("kubectl %s: header %q, want %q", strings.Join(tc.args, " "), tb.header, want)
			}
			ok := len(tb.rows) == len(tc.want)
			for i := 0; ok && i < len(tc.want); i++ {
				row := tb.rows[i]
				ok = row["NAME"] == tc.want[i][0] && row["DATA"] == tc.want[i][1] && isYoungAge(row["AGE"])
			}
			if !ok {
				t.Errorf("kubectl %s: rows %v, want %v with ages in seconds", strings.Join(tc.args, " "), tb.rows, tc.want)
			}
		}

		// -o json and -o yaml are the same object.
		obj := k.getJSON(t, "configmap", "settings", "-n", ns)
		for path, want := range map[string]string{
			"apiVersion":          "v1",
			"kind":                "ConfigMap",
			"metadata.name":       "settings",
			"metadata.namespace":  ns,
			"metadata.labels.app": "e2e",
			"data.color":          "blue",
			"data.size":           "3",
		} {
			if got := str(obj, path); got != want {
				t.Errorf("-o json %s = %q, want %q", path, got, want)
			}
		}
		for _, path := range []string{"metadata.uid", "metadata.resourceVersion"} {
			if str(obj, path) == "" {
				t.Errorf("-o json lacks %s", path)
			}
		}
		if ts, err := time.Parse(time.RFC3339, str(obj, "metadata.creationTimestamp")); err != nil || time.Since(ts) > time.Minute || time.Until(ts) > 5*time.Second {
			t.Errorf("-o json metadata.creationTimestamp %q (%v), want about now", str(obj, "metadata.creationTimestamp"), err)
		}
		k.yamlMatches(t, obj, "get", "configmap", "settings", "-n", ns)

		list := k.getJSON(t, "configmaps", "-n", ns)
		if items, _ := list["items"].([]any); str(list, "kind") != "List" || len(items) != 2 {
			t.Errorf("get configmaps -o json: kind %q with %d items, want List with 2", str(list, "kind"), len(items))
		}
		if got, want := k.ok(t, "get", "configmap", "settings", "-n", ns, "-o", "jsonpath={.data.color}"), "blue"; got != want {
			t.Errorf("-o jsonpath: %q, want %q", got, want)
		}
		if got, want := k.ok(t, "get", "configmaps", "-n", ns, "-o", "name"), "configmap/kube-root-ca.crt\nconfigmap/settings\n"; got != want {
			t.Errorf("-o name: %q, want %q", got, want)
		}

		// The errors kubectl users know.
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"create", "-f", writeFile(t, "cm.yaml", manifest)}, `Error from server (AlreadyExists): error when creating`},
			{[]string{"get", "configmap", "nope", "-n", ns}, `Error from server (NotFound): configmaps "nope" not found`},
			{[]string{"create", "namespace", ns}, `Error from server (AlreadyExists): namespaces "` + ns + `" already exists`},
		} {
			if stderr := k.fails(t, tc.args...); !strings.Contains(stderr, tc.want) {
				t.Errorf("kubectl %s: stderr %q, want it to contain %q", strings.Join(tc.args, " "), stderr, tc.want)
			}
		}
	})

	// Events written through either API are one set of objects, as in
	// kube-apiserver: kubectl lists both through each, with the same
	// columns, and core's field selectors match events.k8s.io writes.
	t.Run("events of both APIs", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-events"
		k.ok(t, "create", "namespace", ns)
		k.ok(t, "create", "-n", ns, "-f", writeFile(t, "events.yaml", eventManifests))
		for _, resource := range []string{"events", "events.v1.events.k8s.io"} {
			tb := parseTable(t, k.ok(t, "get", resource, "-n", ns))
			for _, want := range []map[string]string{
				{"TYPE": "Normal", "REASON": "Why", "OBJECT": "pod/p1", "MESSAGE": "hello"},
				{"TYPE": "Warning", "REASON": "Pulled", "OBJECT": "pod/p2", "MESSAGE": "msg2"},
			} {
				if _, ok := tb.row(want); !ok {
					t.Errorf("kubectl get %s: rows %v, want one with %v", resource, tb.rows, want)
				}
			}
		}
		selectors := []struct {
			resource, selector string
			want               []string
		}{
			{"events", "source=ctrl.example/x", []string{"event/e1"}},
			{"events", "reportingComponent=ctrl.example/x", []string{"event/e1"}},
			{"events", "source=kubelet", []string{"event/e2"}},
			{"events", "involvedObject.name=p1", []string{"event/e1"}},
			{"events.v1.events.k8s.io", "regarding.name=p2", []string{"event.events.k8s.io/e2"}},
			{"events.v1.events.k8s.io", "reportingController=ctrl.example/x", []string{"event.events.k8s.io/e1"}},
		}
		for _, tc := range selectors {
			if got := names(k.ok(t, "get", tc.resource, "-n", ns, "--field-selector", tc.selector, "-o", "name")); !slices.Equal(got, tc.want) {
				t.Errorf("kubectl get %s --field-selector %s: %v, want %v", tc.resource, tc.selector, got, tc.want)
			}
		}
	})

	t.Run("custom resources", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-crd"
		const crdName = "gadgets.e2e.setpoint.dev"
		k.ok(t, "create", "namespace", ns)

		createCRD := func() {
			t.Helper()
			if got, want := k.createFile(t, gadgetCRD), "customresourcedefinition.apiextensions.k8s.io/"+crdName+" created\n"; got != want {
				t.Errorf("kubectl create -f crd: %q, want %q", got, want)
			}
			out := k.ok(t, "wait", "--for=condition=established", "crd/"+crdName, "--timeout=20s")
			if want := "customresourcedefinition.apiextensions.k8s.io/" + crdName + " condition met\n"; out != want {
				t.Errorf("kubectl wait: %q, want %q", out, want)
			}
		}
		createCRD()

		got := k.createFile(t, `apiVersion: e2e.setpoint.dev/v1
kind: Gadget
metadata:
  name: g1
  namespace: `+ns+`
spec:
  size: 3
  color: red
`)
		if want := "gadget.e2e.setpoint.dev/g1 created\n"; got != want {
			t.Errorf("kubectl create -f gadget: %q, want %q", got, want)
		}

		// additionalPrinterColumns, by plural, short name and full name.
		for _, resource := range []string{"gadgets", "gd", "gadget", crdName} {
			tb := parseTable(t, k.ok(t, "get", resource, "-n", ns))
			if want := []string{"NAME", "SIZE", "COLOR", "AGE"}; !slices.Equal(tb.header, want) {
				t.Errorf("kubectl get %s: header %q, want %q", resource, tb.header, want)
			}
			if len(tb.rows) != 1 || tb.rows[0]["NAME"] != "g1" || tb.rows[0]["SIZE"] != "3" || tb.rows[0]["COLOR"] != "red" || !isYoungAge(tb.rows[0]["AGE"]) {
				t.Errorf("kubectl get %s: rows %v, want one: g1 3 red <seconds>", resource, tb.rows)
			}
		}
		obj := k.getJSON(t, "gadget", "g1", "-n", ns)
		if str(obj, "apiVersion") != "e2e.setpoint.dev/v1" || str(obj, "kind") != "Gadget" || str(obj, "spec.color") != "red" {
			t.Errorf("kubectl get gadget g1 -o json: %v", obj)
		}
		if got, want := names(k.ok(t, "api-resources", "--api-group=e2e.setpoint.dev", "-o", "name")), []string{crdName}; !slices.Equal(got, want) {
			t.Errorf("api-resources --api-group=e2e.setpoint.dev: %q, want %q", got, want)
		}

		// A watch on custom resources.
		w := k.start(t, time.Minute, "get", "gadgets", "-n", ns, "--watch", "--output-watch-events")
		w.waitLine(t, "ADDED", "g1")
		k.createFile(t, "apiVersion: e2e.setpoint.dev/v1\nkind: Gadget\nmetadata:\n  name: g2\n  namespace: "+ns+"\nspec:\n  size: 5\n  color: green\n")
		w.waitLine(t, "ADDED", "g2", "5", "green")
		k.ok(t, "patch", "gadget", "g2", "-n", ns, "--type", "merge", "-p", `{"spec":{"color":"blue"}}`)
		w.waitLine(t, "MODIFIED", "g2", "5", "blue")
		w.stop()

		// Deleting the CRD takes its objects with it.
		if out := k.ok(t, "delete", "crd", crdName); !strings.Contains(out, `"`+crdName+`" deleted`) {
			t.Errorf("kubectl delete crd: %q", out)
		}
		if stderr := k.fails(t, "get", "crd", crdName); !strings.Contains(stderr, "NotFound") {
			t.Errorf("kubectl get crd after delete: %q, want NotFound", stderr)
		}
		if stderr := k.fails(t, "get", "--raw", "/apis/e2e.setpoint.dev/v1/namespaces/"+ns+"/gadgets"); !strings.Contains(stderr, "NotFound") {
			t.Errorf("GET gadgets after deleting the CRD: %q, want NotFound", stderr)
		}
		createCRD()
		if out := k.ok(t, "get", "gadgets", "-n", ns, "-o", "name"); out != "" {
			t.Errorf("gadgets after deleting and recreating the CRD: %q, want none", out)
		}
		k.ok(t, "delete", "crd", crdName)
	})

	t.Run("watch", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name  string
			flags []string
			// want is the lines printed, each cut to its first three
			// fields (AGE varies).
			want [][]string
		}{
			{
				name:  "output-watch-events",
				flags: []string{"--watch", "--output-watch-events"},
				want: [][]string{
					{"EVENT", "NAME", "DATA"},
					{"ADDED", "kube-root-ca.crt", "1"},
					{"ADDED", "seed", "1"},
					{"ADDED", "w", "1"},
					{"MODIFIED", "w", "2"},
					{"DELETED", "w", "2"},
				},
			},
			{
				name:  "plain",
				flags: []string{"-w"},
				want: [][]string{
					{"NAME", "DATA", "AGE"},
					{"kube-root-ca.crt", "1"},
					{"seed", "1"},
					{"w", "1"},
					{"w", "2"},
					{"w", "2"},
				},
			},
		} {
			t.Run(tc.name, func(t *testing.T) {
				k := kubectlFor(t)
				ns := "e2e-watch-" + tc.name
				k.ok(t, "create", "namespace", ns)
				k.ok(t, "create", "configmap", "seed", "-n", ns, "--from-literal=a=1")
				// Listed before the watch starts, not as one of its events.
				waitRootCA(t, k, ns)

				w := k.start(t, time.Minute, append([]string{"get", "configmaps", "-n", ns}, tc.flags...)...)
				var got [][]string
				next := func() {
					t.Helper()
					want := tc.want[len(got)]
					f := w.nextLine(t)
					got = append(got, f[:min(len(f), len(want))])
				}
				next() // header
				next() // kube-root-ca.crt and
				next() // seed: the list is printed, so the watch follows it
				k.ok(t, "create", "configmap", "w", "-n", ns, "--from-literal=a=1")
				next()
				k.ok(t, "patch", "configmap", "w", "-n", ns, "--type", "merge", "-p", `{"data":{"b":"2"}}`)
				next()
				k.ok(t, "delete", "configmap", "w", "-n", ns)
				next()
				w.stop()
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("watch printed %q, want %q", got, tc.want)
				}
				if w.res.stderr != "" {
					t.Errorf("watch stderr: %s", w.res.stderr)
				}
			})
		}
	})

	t.Run("delete", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-delete"
		k.ok(t, "create", "namespace", ns)

		k.ok(t, "create", "configmap", "gone", "-n", ns, "--from-literal=a=1")
		if out := k.ok(t, "delete", "configmap", "gone", "-n", ns); !strings.Contains(out, `configmap "gone" deleted`) {
			t.Errorf("kubectl delete: %q, want configmap \"gone\" deleted", out)
		}
		if stderr := k.fails(t, "get", "configmap", "gone", "-n", ns); !strings.Contains(stderr, `configmaps "gone" not found`) {
			t.Errorf("get after delete: %q, want NotFound", stderr)
		}

		// A finalizer holds the object; kubectl delete waits until it is
		// gone.
		k.createFile(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: `+ns+`
  finalizers: ["e2e.setpoint.dev/hold"]
data:
  a: "1"
`)
		del := k.start(t, time.Minute, "delete", "configmap", "held", "-n", ns, "--timeout=50s")
		del.waitLine(t, "configmap", `"held"`, "deleted") // printed once the DELETE returned
		obj := k.getJSON(t, "configmap", "held", "-n", ns)
		if str(obj, "metadata.deletionTimestamp") == "" {
			t.Errorf("object held by a finalizer has no deletionTimestamp after delete: %v", obj)
		}
		del.stillRunning(t, 500*time.Millisecond)
		k.ok(t, "patch", "configmap", "held", "-n", ns, "--type", "json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
		if r := del.waitExit(t); r.err != nil {
			t.Errorf("kubectl delete after the finalizer went: %v", r)
		}
		if stderr := k.fails(t, "get", "configmap", "held", "-n", ns); !strings.Contains(stderr, `configmaps "held" not found`) {
			t.Errorf("get after delete returned: %q, want NotFound", stderr)
		}
	})

	t.Run("delete namespace removes its contents", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-delete-ns"
		k.ok(t, "create", "namespace", ns)
		k.ok(t, "create", "configmap", "inside", "-n", ns, "--from-literal=a=1")
		if out := k.ok(t, "delete", "namespace", ns); !strings.Contains(out, `namespace "`+ns+`" deleted`) {
			t.Errorf("kubectl delete namespace: %q", out)
		}
		if stderr := k.fails(t, "get", "namespace", ns); !strings.Contains(stderr, `namespaces "`+ns+`" not found`) {
			t.Errorf("get namespace after delete returned: %q, want NotFound", stderr)
		}
		// kubectl delete returned, so the namespace and all in it are gone:
		// neither a cluster-wide list nor a namespace of the same name
		// created afterwards shows the old configmap.
		if out := k.ok(t, "get", "configmaps", "--all-namespaces", "--field-selector", "metadata.namespace="+ns, "-o", "name"); out != "" {
			t.Errorf("kubectl get configmaps -A --field-selector metadata.namespace=%s after deleting the namespace: %q, want none", ns, out)
		}
		k.ok(t, "create", "namespace", ns)
		waitRootCA(t, k, ns)
		if out := k.ok(t, "get", "configmaps", "-n", ns, "-o", "name"); out != "configmap/kube-root-ca.crt\n" {
			t.Errorf("configmaps in a recreated namespace %s: %q, want only the new CA bundle", ns, out)
		}
	})

	t.Run("raw", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-raw"
		k.ok(t, "create", "namespace", ns)
		for _, tc := range []struct {
			path     string
			wantKind string // "" for /version, which has none
			check    func(t *testing.T, obj map[string]any)
		}{
			{"/api/v1/namespaces", "NamespaceList", func(t *testing.T, obj map[string]any) {
				if str(obj, "apiVersion") != "v1" || str(obj, "metadata.resourceVersion") == "" {
					t.Errorf("apiVersion %q, resourceVersion %q, want v1 and one set", str(obj, "apiVersion"), str(obj, "metadata.resourceVersion"))
				}
				var got []string
				items, _ := obj["items"].([]any)
				for _, it := range items {
					m, _ := it.(map[string]any)
					got = append(got, str(m, "metadata.name"))
				}
				if !slices.Contains(got, ns) {
					t.Errorf("namespaces %q lack %s", got, ns)
				}
			}},
			{"/version", "", func(t *testing.T, obj map[string]any) {
				if str(obj, "major") == "" || str(obj, "minor") == "" || !strings.HasPrefix(str(obj, "gitVersion"), "v") {
					t.Errorf("version %v, want major, minor and gitVersion v...", obj)
				}
			}},
			{"/api", "APIVersions", func(t *testing.T, obj map[string]any) {
				if v, _ := obj["versions"].([]any); !reflect.DeepEqual(v, []any{"v1"}) {
					t.Errorf("versions %v, want [v1]", obj["versions"])
				}
			}},
			{"/apis/coordination.k8s.io/v1", "APIResourceList", func(t *testing.T, obj map[string]any) {
				if str(obj, "groupVersion") != "coordination.k8s.io/v1" || !strings.Contains(mustJSON(obj), `"name":"leases"`) {
					t.Errorf("resource list %v, want coordination.k8s.io/v1 with leases", obj)
				}
			}},
		} {
			t.Run(strings.Trim(strings.ReplaceAll(tc.path, "/", "_"), "_"), func(t *testing.T) {
				out := k.ok(t, "get", "--raw", tc.path)
				var obj map[string]any
				if err := json.Unmarshal([]byte(out), &obj); err != nil {
					t.Fatalf("kubectl get --raw %s: %v\n%s", tc.path, err, out)
				}
				if got := str(obj, "kind"); got != tc.wantKind {
					t.Errorf("kind %q, want %q", got, tc.wantKind)
				}
				tc.check(t, obj)
			})
		}
	})

	t.Run("label and annotate", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-label"
		k.ok(t, "create", "namespace", ns)
		k.ok(t, "create", "configmap", "tagged", "-n", ns, "--from-literal=a=1")
		for _, tc := range []struct {
			args      []string
			wantOut   string // stdout on success
			wantErr   string // in stderr; the command must fail
			wantField string // metadata.labels or metadata.annotations
			want      map[string]string
		}{
			{args: []string{"label", "tier=web"}, wantOut: "configmap/tagged labeled\n", wantField: "labels", want: map[string]string{"tier": "web"}},
			{args: []string{"label", "tier=db"}, wantErr: "--overwrite is false", wantField: "labels", want: map[string]string{"tier": "web"}},
			{args: []string{"label", "--overwrite", "tier=db", "team=core"}, wantOut: "configmap/tagged labeled\n", wantField: "labels", want: map[string]string{"tier": "db", "team": "core"}},
			{args: []string{"label", "tier-"}, wantOut: "configmap/tagged unlabeled\n", wantField: "labels", want: map[string]string{"team": "core"}},
			{args: []string{"annotate", "note=hello world"}, wantOut: "configmap/tagged annotated\n", wantField: "annotations", want: map[string]string{"note": "hello world"}},
			{args: []string{"annotate", "note=again"}, wantErr: "--overwrite is false", wantField: "annotations", want: map[string]string{"note": "hello world"}},
			{args: []string{"annotate", "--overwrite", "note=again"}, wantOut: "configmap/tagged annotated\n", wantField: "annotations", want: map[string]string{"note": "again"}},
			{args: []string{"annotate", "note-"}, wantOut: "configmap/tagged annotated\n", wantField: "annotations", want: map[string]string{}},
		} {
			args := append([]string{tc.args[0], "configmap", "tagged", "-n", ns}, tc.args[1:]...)
			if tc.wantErr != "" {
				if stderr := k.fails(t, args...); !strings.Contains(stderr, tc.wantErr) {
					t.Errorf("kubectl %s: stderr %q, want it to contain %q", strings.Join(args, " "), stderr, tc.wantErr)
				}
			} else if out := k.ok(t, args...); out != tc.wantOut {
				t.Errorf("kubectl %s: %q, want %q", strings.Join(args, " "), out, tc.wantOut)
			}
			got := stringMap(field(k.getJSON(t, "configmap", "tagged", "-n", ns), "metadata."+tc.wantField))
			if !maps.Equal(got, tc.want) {
				t.Errorf("after kubectl %s: %s %v, want %v", strings.Join(args, " "), tc.wantField, got, tc.want)
			}
		}
	})

	t.Run("patch", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-patch"
		k.ok(t, "create", "namespace", ns)
		k.ok(t, "create", "configmap", "patched", "-n", ns, "--from-literal=a=1")
		for _, tc := range []struct {
			name    string
			flags   []string
			wantOut string
			wantErr string
			want    map[string]string // data afterwards
		}{
			{"merge add", []string{"--type", "merge", "-p", `{"data":{"b":"2"}}`}, "configmap/patched patched\n", "", map[string]string{"a": "1", "b": "2"}},
			{"merge delete", []string{"--type", "merge", "-p", `{"data":{"a":null}}`}, "configmap/patched patched\n", "", map[string]string{"b": "2"}},
			{"merge no change", []string{"--type", "merge", "-p", `{"data":{"b":"2"}}`}, "configmap/patched patched (no change)\n", "", map[string]string{"b": "2"}},
			{"json add", []string{"--type", "json", "-p", `[{"op":"add","path":"/data/c","value":"3"}]`}, "configmap/patched patched\n", "", map[string]string{"b": "2", "c": "3"}},
			{"json replace", []string{"--type", "json", "-p", `[{"op":"replace","path":"/data/b","value":"20"}]`}, "configmap/patched patched\n", "", map[string]string{"b": "20", "c": "3"}},
			{"json remove", []string{"--type", "json", "-p", `[{"op":"remove","path":"/data/c"}]`}, "configmap/patched patched\n", "", map[string]string{"b": "20"}},
			{"json failed test", []string{"--type", "json", "-p", `[{"op":"test","path":"/data/b","value":"nope"},{"op":"remove","path":"/data/b"}]`}, "", "is invalid", map[string]string{"b": "20"}},
			{"strategic", []string{"-p", `{"data":{"d":"4"}}`}, "configmap/patched patched\n", "", map[string]string{"b": "20", "d": "4"}},
		} {
			args := append([]string{"patch", "configmap", "patched", "-n", ns}, tc.flags...)
			if tc.wantErr != "" {
				if stderr := k.fails(t, args...); !strings.Contains(stderr, tc.wantErr) {
					t.Errorf("%s: kubectl %s: stderr %q, want it to contain %q", tc.name, strings.Join(args, " "), stderr, tc.wantErr)
				}
			} else if out := k.ok(t, args...); out != tc.wantOut {
				t.Errorf("%s: kubectl %s: %q, want %q", tc.name, strings.Join(args, " "), out, tc.wantOut)
			}
			got := stringMap(field(k.getJSON(t, "configmap", "patched", "-n", ns), "data"))
			if !maps.Equal(got, tc.want) {
				t.Errorf("%s: data %v, want %v", tc.name, got, tc.want)
			}
		}
	})

	t.Run("selectors", func(t *testing.T) {
		t.Parallel()
		k := kubectlFor(t)
		const ns = "e2e-select"
		k.ok(t, "create", "namespace", ns)
		for name, labels := range map[string]map[string]string{
			"a1": {"app": "a", "tier": "web"},
			"a2": {"app": "a", "tier": "db"},
			"b1": {"app": "b"},
		} {
			k.createFile(t, configMapYAML(ns, name, labels, map[string]string{"k": "v"}))
		}
		// The namespace's CA bundle, unlabelled, is matched too, as in kube.
		waitRootCA(t, k, ns)
		const ca = "kube-root-ca.crt"
		for _, tc := range []struct {
			flags []string
			want  []string
		}{
			{[]string{"-l", "app=a"}, []string{"a1", "a2"}},
			{[]string{"-l", "app=a,tier=web"}, []string{"a1"}},
			{[]string{"-l", "app!=a"}, []string{"b1", ca}},
			{[]string{"-l", "app in (a,b)"}, []string{"a1", "a2", "b1"}},
			{[]string{"-l", "tier notin (web)"}, []string{"a2", "b1", ca}},
			{[]string{"-l", "tier"}, []string{"a1", "a2"}},
			{[]string{"-l", "!tier"}, []string{"b1", ca}},
			{[]string{"-l", "app=zzz"}, nil},
			{[]string{"--field-selector", "metadata.name=a1"}, []string{"a1"}},
			{[]string{"--field-selector", "metadata.name!=a1"}, []string{"a2", "b1", ca}},
			{[]string{"--field-selector", "metadata.namespace=" + ns}, []string{"a1", "a2", "b1", ca}},
			{[]string{"-l", "app=a", "--field-selector", "metadata.name=a2"}, []string{"a2"}},
		} {
			args := append([]string{"get", "configmaps", "-n", ns, "-o", "name"}, tc.flags...)
			var want []string
			for _, n := range tc.want {
				want = append(want, "configmap/"+n)
			}
			if got := names(k.ok(t, args...)); !slices.Equal(got, want) {
				t.Errorf("kubectl %s: %q, want %q", strings.Join(args, " "), got, want)
			}
		}

		// Across namespaces, with the NAMESPACE column.
		tb := parseTable(t, k.ok(t, "get", "configmaps", "--all-namespaces", "-l", "app=b"))
		if want := []string{"NAMESPACE", "NAME", "DATA", "AGE"}; !slices.Equal(tb.header, want) {
			t.Errorf("get -A header %q, want %q", tb.header, want)
		}
		if _, ok := tb.row(map[string]string{"NAMESPACE": ns, "NAME": "b1", "DATA": "1"}); !ok || len(tb.rows) != 1 {
			t.Errorf("get -A -l app=b rows %v, want one: %s b1 1", tb.rows, ns)
		}

		stderr := k.fails(t, "get", "configmaps", "-n", ns, "--field-selector", "data.k=v")
		// kube registers no field label conversion for ConfigMaps: the
		// scheme's default refusal, as the oracle answers.
		if want := `"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"`; !strings.Contains(stderr, want) {
			t.Errorf("unsupported field selector: %q, want it to contain %q", stderr, want)
		}
	})
}

// gadgetCRD is a namespaced CRD with printer columns.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.e2e.setpoint.dev
spec:
  group: e2e.setpoint.dev
  scope: Namespaced
  names:
    plural: gadgets
    singular: gadget
    kind: Gadget
    shortNames: [gd]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
              color:
                type: string
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
`

// stringMap converts a decoded JSON object of strings.
func stringMap(v any) map[string]string {
	m := map[string]string{}
	obj, _ := v.(map[string]any)
	for k, v := range obj {
		m[k], _ = v.(string)
	}
	return m
}

func isSubset(want, got []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// eventManifests are one Event written through each Events API.
const eventManifests = `apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e1}
eventTime: "2026-01-02T03:04:05.123456Z"
reportingController: ctrl.example/x
reportingInstance: inst-1
action: Act
reason: Why
type: Normal
note: hello
regarding: {kind: Pod, name: p1, namespace: e2e-events, apiVersion: v1}
---
apiVersion: v1
kind: Event
metadata: {name: e2}
involvedObject: {kind: Pod, name: p2, namespace: e2e-events}
reason: Pulled
message: msg2
type: Warning
source: {component: kubelet, host: node-a}
count: 3
`

// waitRootCA waits until the root CA publisher has put kube-root-ca.crt
// in ns, as kube-controller-manager does in every new namespace.
func waitRootCA(t *testing.T, k *kubectl, ns string) {
	t.Helper()
	eventually(t, "kube-root-ca.crt in "+ns, func() (string, bool) {
		r := k.run(t, "get", "configmap", "kube-root-ca.crt", "-n", ns, "-o", "name")
		return r.String(), r.err == nil
	})
}
