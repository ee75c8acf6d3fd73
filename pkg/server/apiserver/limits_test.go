package apiserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// blobCRD serves Blobs, whose spec keeps whatever it is given: the
// shape an attacker builds big or deep objects with.
const blobCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"blobs.limits.example.com"},
"spec":{"group":"limits.example.com","scope":"Namespaced","names":{"plural":"blobs","kind":"Blob"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
 "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}`

const (
	blobs      = "/apis/limits.example.com/v1/namespaces/demo/blobs"
	configMaps = "/api/v1/namespaces/demo/configmaps"
	secrets    = "/api/v1/namespaces/demo/secrets"
)

// acceptHeader as the content type of a serveFunc call makes its body
// the Accept header of a request without a body.
const acceptHeader = "accept:"

// startLimitServer starts a server on memory storage with cfg, a
// namespace demo and the Blob kind, and returns a way to send it
// requests without a network.
func startLimitServer(t testing.TB, cfg Config) serveFunc {
	t.Helper()
	store := memory.New()
	cfg.Storage = store
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done; store.Close() })
	<-s.Ready()
	h := s.Handler()
	serve := func(method, target, ctype, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "https://setpoint.test/", strings.NewReader(body))
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Path, req.URL.RawQuery = u.Path, u.RawQuery
		switch {
		case strings.HasPrefix(ctype, acceptHeader):
			req.Header.Set("Accept", body)
			req.Body = http.NoBody
		case ctype != "":
			req.Header.Set("Content-Type", ctype)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	mustCode(t, serve, 201, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"demo"}}`)
	mustCode(t, serve, 201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", blobCRD)
	return serve
}

func mustCode(t testing.TB, serve serveFunc, want int, method, target, ctype, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := serve(method, target, ctype, body)
	if rec.Code != want {
		t.Fatalf("%s %s: got %d, want %d: %.500s", method, target, rec.Code, want, rec.Body)
	}
	return rec
}

// statusOf reads the Status of an error answer.
func statusOf(t testing.TB, rec *httptest.ResponseRecorder) (code int, reason, message string, causeFields []string) {
	t.Helper()
	var st struct {
		Kind    string
		Code    int
		Reason  string
		Message string
		Details struct{ Causes []struct{ Field string } }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" {
		t.Fatalf("answer %d is not a Status: %.300s", rec.Code, rec.Body)
	}
	for _, c := range st.Details.Causes {
		causeFields = append(causeFields, c.Field)
	}
	return st.Code, st.Reason, st.Message, causeFields
}

// storedVersion is the resourceVersion of the object at path, or "" if
// there is none.
func storedVersion(t testing.TB, serve serveFunc, path string) string {
	t.Helper()
	rec := serve("GET", path, "", "")
	if rec.Code == 404 {
		return ""
	}
	var obj struct {
		Metadata struct{ ResourceVersion string }
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &obj) != nil {
		t.Fatalf("GET %s: %d %.300s", path, rec.Code, rec.Body)
	}
	return obj.Metadata.ResourceVersion
}

func repeatOps(n int, op string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(op+",", n), ",") + "]"
}

// TestJSONPatchLimits: a JSON patch may hold 10,000 operations and its
// copies may add 3 MiB; past that it is refused as kube-apiserver
// refuses it, and a patch within both whose result is over the object
// size bound is refused too. Nothing refused is stored.
func TestJSONPatchLimits(t *testing.T) {
	serve := startLimitServer(t, Config{})
	blob := `{"apiVersion":"limits.example.com/v1","kind":"Blob","metadata":{"name":"b"},"spec":{"s":"` + strings.Repeat("x", 64<<10) + `"}}`
	mustCode(t, serve, 201, "POST", blobs, "application/json", blob)
	// Each copy of spec into itself doubles it.
	doubling := func(n int) string {
		ops := make([]string, n)
		for i := range ops {
			ops[i] = `{"op":"copy","from":"/spec","path":"/spec/c` + string(rune('a'+i)) + `"}`
		}
		return "[" + strings.Join(ops, ",") + "]"
	}
	test := `{"op":"test","path":"/metadata/name","value":"b"}`
	tests := []struct {
		name        string
		patch       string
		wantCode    int
		wantReason  string
		wantMessage string
	}{
		{"18 doubling copies pass the copy limit", doubling(18), 422, "Invalid",
			"the server rejected our request due to an error in our request"},
		{"a patch that does not apply", `[{"op":"replace","path":"/spec/none/x","value":1}]`, 422, "Invalid",
			"the server rejected our request due to an error in our request"},
		{"5 doubling copies make an object over the size limit", doubling(5), 500, "",
			"etcdserver: request is too large"},
		{"10001 operations", repeatOps(10001, test), 413, "RequestEntityTooLarge",
			"Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"},
		{"10000 operations", repeatOps(10000, test), 200, "", ""},
		{"4 doubling copies fit", doubling(4), 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := storedVersion(t, serve, blobs+"/b")
			rec := serve("PATCH", blobs+"/b", "application/json-patch+json", tt.patch)
			if rec.Code != tt.wantCode {
				t.Fatalf("got %d, want %d: %.300s", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantCode == 200 {
				return
			}
			_, reason, msg, _ := statusOf(t, rec)
			if reason != tt.wantReason || !strings.Contains(msg, tt.wantMessage) {
				t.Errorf("got reason %q message %q, want %q with %q", reason, msg, tt.wantReason, tt.wantMessage)
			}
			if after := storedVersion(t, serve, blobs+"/b"); after != before {
				t.Errorf("a refused patch was stored: resourceVersion %s became %s", before, after)
			}
		})
	}
}

// TestMaxObjectBytes: whichever way an object is written, one whose
// stored encoding is over MaxObjectBytes is refused with the answer
// kube-apiserver passes on from etcd, and nothing is stored. A dry run
// stores nothing, so kube lets it through.
func TestMaxObjectBytes(t *testing.T) {
	serve := startLimitServer(t, Config{MaxObjectBytes: 64 << 10})
	mustCode(t, serve, 201, "POST", configMaps, "application/json", `{"metadata":{"name":"c"},"data":{"k":"v"}}`)
	big := strings.Repeat("x", 70<<10)
	fits := strings.Repeat("x", 60<<10)
	cm := func(name, v string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"big":"` + v + `"}}`
	}
	apply := func(name, v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  big: " + v + "\n"
	}
	tests := []struct {
		name, method, path, ctype, body string
		want                            int
	}{
		{"create", "POST", configMaps, "application/json", cm("new", big), 500},
		{"update", "PUT", configMaps + "/c", "application/json", cm("c", big), 500},
		{"JSON patch", "PATCH", configMaps + "/c", "application/json-patch+json", `[{"op":"add","path":"/data/big","value":"` + big + `"}]`, 500},
		{"merge patch", "PATCH", configMaps + "/c", "application/merge-patch+json", `{"data":{"big":"` + big + `"}}`, 500},
		{"strategic merge patch", "PATCH", configMaps + "/c", "application/strategic-merge-patch+json", `{"data":{"big":"` + big + `"}}`, 500},
		{"apply to an object", "PATCH", configMaps + "/c?fieldManager=a", "application/apply-patch+yaml", apply("c", big), 500},
		{"apply that creates", "PATCH", configMaps + "/new?fieldManager=a", "application/apply-patch+yaml", apply("new", big), 500},
		{"dry-run create", "POST", configMaps + "?dryRun=All", "application/json", cm("new", big), 201},
		{"create within the bound", "POST", configMaps, "application/json", cm("fits", fits), 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := storedVersion(t, serve, configMaps+"/c")
			rec := serve(tt.method, tt.path, tt.ctype, tt.body)
			if rec.Code != tt.want {
				t.Fatalf("got %d, want %d: %.300s", rec.Code, tt.want, rec.Body)
			}
			if tt.want != 500 {
				return
			}
			if _, reason, msg, _ := statusOf(t, rec); reason != "" || msg != "etcdserver: request is too large" {
				t.Errorf("got reason %q message %q, want kube's etcd answer", reason, msg)
			}
			if after := storedVersion(t, serve, configMaps+"/c"); after != before {
				t.Errorf("c was written: resourceVersion %s became %s", before, after)
			}
			if rv := storedVersion(t, serve, configMaps+"/new"); rv != "" {
				t.Errorf("new was created")
			}
		})
	}
}

// TestTooLargeDropsManagedFields: as in kube-apiserver, a create or
// update that fits only without its managedFields is stored without
// them; an apply, whose managedFields are its point, is refused.
func TestTooLargeDropsManagedFields(t *testing.T) {
	data := map[string]string{}
	for i := range 3000 {
		data["key"+strings.Repeat("0", 5-len(itoa(i)))+itoa(i)] = "v"
	}
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "m"}, "data": data})
	// Measure the object with and without managedFields on a server
	// without a tight bound, then bound one between the two.
	probe := startLimitServer(t, Config{})
	rec := mustCode(t, probe, 201, "POST", configMaps+"?fieldManager=m", "application/json", string(body))
	var obj map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	with, _ := json.Marshal(obj)
	delete(obj["metadata"].(map[string]any), "managedFields")
	without, _ := json.Marshal(obj)
	if len(with)-len(without) < 10<<10 {
		t.Fatalf("managedFields take %d bytes, too few to test with", len(with)-len(without))
	}
	serve := startLimitServer(t, Config{MaxObjectBytes: (len(with) + len(without)) / 2})

	rec = mustCode(t, serve, 201, "POST", configMaps+"?fieldManager=m", "application/json", string(body))
	if strings.Contains(rec.Body.String(), `"managedFields"`) {
		t.Errorf("create: the answer keeps managedFields that were not stored")
	}
	if got := serve("GET", configMaps+"/m", "", ""); strings.Contains(got.Body.String(), `"managedFields"`) {
		t.Errorf("create: managedFields were stored")
	}

	var yamlData strings.Builder
	for k, v := range data {
		yamlData.WriteString("  " + k + ": " + v + "\n")
	}
	applied := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n" + yamlData.String()
	rec = mustCode(t, serve, 500, "PATCH", configMaps+"/a?fieldManager=m", "application/apply-patch+yaml", applied)
	if _, _, msg, _ := statusOf(t, rec); msg != "etcdserver: request is too large" {
		t.Errorf("apply: got %q", msg)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestDataSizeLimits: ConfigMaps and Secrets hold at most 1 MiB of
// data, counted over data and binaryData (decoded), refused with 422
// and kube's field paths.
func TestDataSizeLimits(t *testing.T) {
	serve := startLimitServer(t, Config{})
	half := 1 << 19
	b64 := func(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, n)) }
	cm := func(name, data, binary string) string {
		return `{"metadata":{"name":"` + name + `"},"data":{"a":"` + data + `"},"binaryData":{"b":"` + binary + `"}}`
	}
	secret := func(name, field, v string) string {
		return `{"metadata":{"name":"` + name + `"},"` + field + `":{"a":"` + v + `"}}`
	}
	tests := []struct {
		name, path, body string
		wantCode         int
		wantMessage      string
		wantField        string
	}{
		{"ConfigMap of 1 MiB", configMaps, cm("c1", strings.Repeat("x", half), b64(half)), 201, "", ""},
		{"ConfigMap over 1 MiB", configMaps, cm("c2", strings.Repeat("x", half+1), b64(half)), 422,
			`ConfigMap "c2" is invalid: []: Too long: may not be more than 1048576 bytes`, "[]"},
		{"Secret of 1 MiB", secrets, secret("s1", "data", b64(1<<20)), 201, "", ""},
		{"Secret over 1 MiB", secrets, secret("s2", "data", b64(1<<20+1)), 422,
			`Secret "s2" is invalid: data: Too long: may not be more than 1048576 bytes`, "data"},
		{"Secret over 1 MiB in stringData", secrets, secret("s3", "stringData", strings.Repeat("x", 1<<20+1)), 422,
			`Secret "s3" is invalid: data: Too long: may not be more than 1048576 bytes`, "data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve("POST", tt.path, "application/json", tt.body)
			if rec.Code != tt.wantCode {
				t.Fatalf("got %d, want %d: %.300s", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantCode != 422 {
				return
			}
			_, reason, msg, fields := statusOf(t, rec)
			if reason != "Invalid" || msg != tt.wantMessage || len(fields) != 1 || fields[0] != tt.wantField {
				t.Errorf("got %s %q fields %q, want Invalid %q field %q", reason, msg, fields, tt.wantMessage, tt.wantField)
			}
		})
	}
	t.Run("an update over 1 MiB", func(t *testing.T) {
		rec := mustCode(t, serve, 422, "PATCH", configMaps+"/c1", "application/merge-patch+json", `{"data":{"more":"x"}}`)
		if _, _, msg, _ := statusOf(t, rec); !strings.Contains(msg, "may not be more than 1048576 bytes") {
			t.Errorf("got %q", msg)
		}
	})
}

// nested is a JSON value depth levels deep: objects down to a string.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + `"x"` + strings.Repeat("}", depth)
}

// aliasBomb is a Blob whose YAML aliases expand nine levels of nine.
func aliasBomb(name string) string {
	var b strings.Builder
	b.WriteString("apiVersion: limits.example.com/v1\nkind: Blob\nmetadata:\n  name: " + name + "\nspec:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for c := 'b'; c <= 'i'; c++ {
		prev := "*" + string(c-1)
		b.WriteString("  " + string(c) + ": &" + string(c) + " [" + strings.TrimSuffix(strings.Repeat(prev+", ", 9), ", ") + "]\n")
	}
	return b.String()
}

// TestNestingDepth: JSON and YAML bodies, patches included, may nest
// 10,000 levels, as kube-apiserver's decoders allow; deeper is a 400,
// and a patch that makes a stored object deeper is refused. YAML that
// expands through aliases is refused too.
func TestNestingDepth(t *testing.T) {
	serve := startLimitServer(t, Config{})
	blob := func(name string, specDepth int) string {
		// The object, spec and the innermost string's object are three
		// levels of their own.
		return `{"apiVersion":"limits.example.com/v1","kind":"Blob","metadata":{"name":"` + name + `"},"spec":` + nested(specDepth) + `}`
	}
	mustCode(t, serve, 201, "POST", blobs, "application/json", blob("b", 1))
	tests := []struct {
		name, method, path, ctype, body string
		want                            int
		msg                             string
	}{
		{"JSON of depth 10000", "POST", blobs, "application/json", blob("ok", 9999), 201, ""},
		{"JSON of depth 10001", "POST", blobs, "application/json", blob("deep", 10000), 400, "max depth"},
		{"YAML of depth 10001", "POST", blobs, "application/yaml", blob("deep", 10000), 400, "max depth"},
		{"merge patch of depth 10001", "PATCH", blobs + "/b", "application/merge-patch+json", `{"spec":` + nested(10000) + `}`, 400, "max depth"},
		{"apply of depth 10001", "PATCH", blobs + "/b?fieldManager=a", "application/apply-patch+yaml", blob("b", 10000), 400, "max depth"},
		{"JSON patch that nests past 10000", "PATCH", blobs + "/b", "application/json-patch+json", `[{"op":"add","path":"/spec/a","value":` + nested(9999) + `}]`, 400, "max depth"},
		// Aliases expand without nesting: a billion laughs.
		{"YAML alias bomb", "POST", blobs, "application/yaml", aliasBomb("deep"), 400, "excessive aliasing"},
		{"apply alias bomb", "PATCH", blobs + "/b?fieldManager=a", "application/apply-patch+yaml", aliasBomb("b"), 400, "excessive aliasing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := storedVersion(t, serve, blobs+"/b")
			rec := serve(tt.method, tt.path, tt.ctype, tt.body)
			if rec.Code != tt.want {
				t.Fatalf("got %d, want %d: %.300s", rec.Code, tt.want, rec.Body)
			}
			if tt.want != 400 {
				return
			}
			if _, reason, msg, _ := statusOf(t, rec); reason != "BadRequest" || !strings.Contains(msg, tt.msg) {
				t.Errorf("got %s %.200q, want BadRequest with %q", reason, msg, tt.msg)
			}
			if after := storedVersion(t, serve, blobs+"/b"); after != before {
				t.Errorf("b was written: resourceVersion %s became %s", before, after)
			}
			if rv := storedVersion(t, serve, blobs+"/deep"); rv != "" {
				t.Errorf("deep was created")
			}
		})
	}
}

// TestYAMLOutputBound: the deepest object the server accepts (60 KB,
// whose YAML would be hundreds of megabytes) is refused as YAML and
// still served as JSON (the bound itself is tested in package response).
func TestYAMLOutputBound(t *testing.T) {
	deep := `{"apiVersion":"limits.example.com/v1","kind":"Blob","metadata":{"name":"deep"},"spec":` + nested(9999) + `}`
	serve := startLimitServer(t, Config{})
	mustCode(t, serve, 201, "POST", blobs, "application/json", deep)
	rec := serve("GET", blobs+"/deep", acceptHeader, "application/yaml")
	if rec.Code != 500 || rec.Body.Len() > 4<<10 {
		t.Errorf("GET as YAML: got %d with %d bytes, want a short 500", rec.Code, rec.Body.Len())
	}
	if rec := serve("GET", blobs, acceptHeader, "application/yaml"); rec.Code != 500 {
		t.Errorf("LIST as YAML: got %d, want 500", rec.Code)
	}
	if rec := serve("GET", blobs+"/deep", acceptHeader, "application/json"); rec.Code != 200 {
		t.Errorf("GET as JSON: got %d, want 200", rec.Code)
	}
}

// TestRequestBodyLimit: a body of more than 3 MiB is refused with
// kube-apiserver's 413 on every verb that reads one; 3 MiB is read.
func TestRequestBodyLimit(t *testing.T) {
	serve := startLimitServer(t, Config{})
	mustCode(t, serve, 201, "POST", configMaps, "application/json", `{"metadata":{"name":"c"}}`)
	// pad makes a JSON object of exactly n bytes.
	pad := func(n int) string {
		head := `{"metadata":{"name":"c"}}`
		return head + strings.Repeat(" ", n-len(head))
	}
	tests := []struct {
		name, method, path, ctype string
	}{
		{"create", "POST", configMaps, "application/json"},
		{"update", "PUT", configMaps + "/c", "application/json"},
		{"merge patch", "PATCH", configMaps + "/c", "application/merge-patch+json"},
		{"apply", "PATCH", configMaps + "/c?fieldManager=a", "application/apply-patch+yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(tt.method, tt.path, tt.ctype, pad(3<<20+1))
			if rec.Code != 413 {
				t.Fatalf("got %d, want 413: %.300s", rec.Code, rec.Body)
			}
			if _, reason, msg, _ := statusOf(t, rec); reason != "RequestEntityTooLarge" || msg != "Request entity too large: limit is 3145728" {
				t.Errorf("got %s %q", reason, msg)
			}
			if rec := serve(tt.method, tt.path, tt.ctype, pad(3<<20)); rec.Code == 413 {
				t.Errorf("a body of 3 MiB was refused: %.300s", rec.Body)
			}
		})
	}
}

// TestJSONPatchCopyLimit: the copies of one JSON patch may add at most
// 3 MiB, kube-apiserver's JSONPatchMaxCopyBytes.
func TestJSONPatchCopyLimit(t *testing.T) {
	// The string encodes, quoted, in exactly 1 MiB.
	doc := []byte(`{"spec":{"s":"` + strings.Repeat("x", 1<<20-2) + `"}}`)
	for _, tt := range []struct {
		name    string
		copies  int
		refused bool
	}{
		{"3 MiB of copies fit", 3, false},
		{"4 MiB of copies do not", 4, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			jp, err := jsonpatch.DecodePatch([]byte("[" + strings.TrimPrefix(copies(tt.copies, "/spec/s", "/spec/c"), ",") + "]"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = applyPatch(jsonPatchType, jp, nil, doc, schema.GroupVersionKind{})
			var tooLarge *jsonpatch.AccumulatedCopySizeError
			switch {
			case !tt.refused && err != nil:
				t.Errorf("got %v, want the copies applied", err)
			case tt.refused && !errors.As(err, &tooLarge):
				t.Errorf("got %v, want an AccumulatedCopySizeError", err)
			}
		})
	}
}
