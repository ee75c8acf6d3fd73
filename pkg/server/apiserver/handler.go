package apiserver

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/user"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/discovery"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/filters"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/healthz"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/metrics"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// request is one API request on a resource, parsed from its URL.
type request struct {
	res         *registry.Resource
	verb        registry.Verb
	namespace   string
	name        string
	subresource registry.Subresource
	query       url.Values
	// emptyNamespace marks a URL whose namespace segment is empty
	// (/namespaces//configmaps).
	emptyNamespace bool
}

func (s *Server) buildHandler() http.Handler {
	h := filters.WithRequestTimeout(http.HandlerFunc(s.serveHTTP), filters.Timeout{
		Default: s.cfg.RequestTimeout, Log: s.log, WriteStatus: writeStatus,
	})
	if s.cfg.AccessLog {
		h = filters.WithAccessLog(h, s.log, s.userOf)
	}
	return h
}

// userOf names the user whose credentials a request carries; requests
// without valid ones are anonymous.
func (s *Server) userOf(r *http.Request) string {
	if id, ok := s.cfg.Authenticator.(Identifier); ok {
		if info, ok := id.Identify(r); ok {
			return info.Username
		}
	}
	return user.Anonymous.Username
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	endpoint, check, health := healthz.Match(path)
	if health && check == "" {
		// Probes answer without credentials, as kube-apiserver's do for
		// anonymous users, so a supervisor can check the process.
		s.health.ServeEndpoint(w, r, endpoint)
		return
	}
	r, ok := filters.Authenticate(r, s.cfg.Authenticator)
	if !ok {
		writeStatus(w, apierror.Unauthorized())
		return
	}
	r, ok = s.authorize(w, r)
	if !ok {
		return
	}
	switch {
	case health:
		if !s.health.ServeCheck(w, r, endpoint, check) {
			writeStatus(w, apierror.PathNotFound())
		}
	case path == "/version" || path == "/version/":
		s.serveVersion(w, r)
	case strings.HasPrefix(path, "/debug/pprof") && !s.cfg.DisableProfiling:
		// kube-apiserver's --profiling, on by default: Go's profiles
		// for whoever the server authenticates.
		servePprof(w, r)
	case path == SnapshotPath:
		s.serveSnapshot(w, r)
	case path == "/metrics":
		s.metrics.Handler().ServeHTTP(w, r)
	case s.servesIssuerDiscovery(path):
		s.serveIssuerDiscovery(w, r)
	case discovery.Match(path):
		s.discovery.ServeHTTP(w, r)
	case path == "/openapi/v2" || path == "/openapi/v3" || strings.HasPrefix(path, "/openapi/v3/"):
		s.openapi.ServeHTTP(w, r)
	case strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/apis/"):
		s.serveResource(w, r)
	default:
		writeStatus(w, apierror.PathNotFound())
	}
}

// serveResource handles every request on a resource or object.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := filters.NewStatusRecorder(w)
	req, err := s.parseRequest(r)
	labels := metrics.Request{Verb: "UNKNOWN"}
	if req != nil {
		labels = req.metricLabels(r)
	}
	// Watches are observed when they end, over the whole stream, as
	// kube-apiserver does.
	defer func() { s.metrics.ObserveRequest(labels, rw.Code(), time.Since(start)) }()
	if err != nil {
		writeStatus(rw, apierror.From(err, schema.GroupResource{}, ""))
		return
	}
	release, ok := s.inflight.Admit(rw, r, filters.RequestInfo{
		Verb: string(req.verb), Resource: req.res.GroupResource(), Namespace: req.namespace, Labels: labels,
	})
	if !ok {
		return
	}
	defer release()
	if !req.verb.ReadOnly() {
		r = r.WithContext(withRuleWarnings(r.Context(), rw))
	}
	if req.verb == registry.VerbWatch {
		end := s.metrics.LongRunning(labels)
		defer end()
	}
	switch req.verb {
	case registry.VerbGet:
		err = s.get(rw, r, req)
	case registry.VerbList:
		err = s.list(rw, r, req)
	case registry.VerbWatch:
		err = s.watch(rw, r, req)
	case registry.VerbCreate:
		err = s.create(rw, r, req)
	case registry.VerbUpdate:
		err = s.update(rw, r, req)
	case registry.VerbPatch:
		err = s.patch(rw, r, req)
	case registry.VerbDelete:
		err = s.delete(rw, r, req)
	case registry.VerbDeleteCollection:
		err = s.deleteCollection(rw, r, req)
	}
	if err != nil {
		writeStatus(rw, apierror.From(err, req.res.GroupResource(), req.name))
	}
}

func (req *request) metricLabels(r *http.Request) metrics.Request {
	scope := "cluster"
	switch {
	case req.name != "" && req.res.Namespaced:
		scope = "resource"
	case req.name != "":
		scope = "resource"
	case req.namespace != "":
		scope = "namespace"
	}
	return metrics.Request{
		Verb: strings.ToUpper(string(req.verb)), Group: req.res.Group, Version: req.res.Version,
		Resource: req.res.Plural, Subresource: string(req.subresource), Scope: scope,
		DryRun: req.query.Get("dryRun") != "",
	}
}

// parseRequest splits /api/v1/... and /apis/<group>/<version>/... into a
// request, looking the resource up in the registry.
func (s *Server) parseRequest(r *http.Request) (*request, error) {
	parts := splitPath(r.URL.Path)
	var gv schema.GroupVersion
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		gv.Version = parts[1]
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		gv.Group, gv.Version = parts[1], parts[2]
		parts = parts[3:]
	default:
		return nil, apierror.PathNotFound()
	}
	req := &request{query: r.URL.Query()}
	var resource string
	switch {
	case len(parts) >= 3 && parts[0] == "namespaces" && !(len(parts) == 3 && (parts[2] == "status" || parts[2] == "finalize")):
		req.namespace = parts[1]
		req.emptyNamespace = parts[1] == ""
		resource = parts[2]
		parts = parts[3:]
	case len(parts) >= 1:
		resource = parts[0]
		parts = parts[1:]
	default:
		return nil, apierror.PathNotFound()
	}
	switch len(parts) {
	case 0:
	case 1:
		req.name = parts[0]
	case 2:
		req.name, req.subresource = parts[0], registry.Subresource(parts[1])
	default:
		return nil, apierror.PathNotFound()
	}
	if !registry.IsBuiltinGroup(gv.Group) {
		// Custom resources come and go with CRD writes, which the
		// registry learns from the watch cache: catch up first, so a
		// request made after a CRD write (create or delete) was answered
		// sees it.
		s.waitRouting(r.Context())
	}
	res, ok := s.reg.Get(gv.WithResource(resource))
	if !ok {
		return nil, apierror.PathNotFound()
	}
	req.res = res
	if req.namespace != "" && !res.Namespaced {
		return nil, apierror.PathNotFound()
	}
	if !res.ServesSubresource(req.subresource) {
		return nil, apierror.PathNotFound()
	}
	if req.name != "" && res.Namespaced && req.namespace == "" && !req.emptyNamespace {
		return nil, apierror.PathNotFound()
	}
	collection := req.name == ""
	switch {
	case r.Method == http.MethodGet && collection && req.query.Get("watch") != "" && req.query.Get("watch") != "false" && req.query.Get("watch") != "0":
		req.verb = registry.VerbWatch
	case r.Method == http.MethodGet && collection:
		req.verb = registry.VerbList
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		req.verb = registry.VerbGet
	case r.Method == http.MethodPost && (collection || req.subresource.Creates()):
		req.verb = registry.VerbCreate
	case r.Method == http.MethodPut && !collection:
		req.verb = registry.VerbUpdate
	case r.Method == http.MethodPatch && !collection:
		req.verb = registry.VerbPatch
	case r.Method == http.MethodDelete && collection:
		req.verb = registry.VerbDeleteCollection
	case r.Method == http.MethodDelete && req.subresource == registry.SubresourceNone:
		req.verb = registry.VerbDelete
	default:
		return req, apierror.MethodNotAllowed()
	}
	if !subresourceServes(req.subresource, req.verb) {
		return req, apierror.MethodNotAllowed()
	}
	if !res.Serves(string(req.verb)) || !servedAcrossNamespaces(res, req) {
		return req, apierror.MethodNotAllowed()
	}
	if err := checkEmptyNamespace(res, req); err != nil {
		return req, err
	}
	check := params.CheckQuery
	if req.subresource.Connects() {
		check = params.ConnectQuery(req.subresource)
	}
	if err := check(req.verb, req.query); err != nil {
		return req, err
	}
	if err := params.CheckFieldManager(req.query); err != nil {
		return req, err
	}
	return req, nil
}

// subresourceServes reports whether a subresource answers verb: finalize
// is written only by update, binding only created; the others are read
// and written like the object.
func subresourceServes(sub registry.Subresource, verb registry.Verb) bool {
	switch {
	case sub == registry.SubresourceNone:
		return true
	case sub == registry.SubresourceFinalize:
		return verb == registry.VerbUpdate
	case sub == registry.SubresourceLog:
		return verb == registry.VerbGet
	case sub.Connects():
		return verb == registry.VerbGet || verb == registry.VerbCreate
	case sub.Creates():
		return verb == registry.VerbCreate
	}
	return verb == registry.VerbGet || verb == registry.VerbUpdate || verb == registry.VerbPatch
}

// servedAcrossNamespaces reports whether a request without a namespace
// is served: across every namespace a namespaced kind can only be listed
// and watched, as kube-apiserver routes it.
func servedAcrossNamespaces(res *registry.Resource, req *request) bool {
	if !res.Namespaced || req.namespace != "" || req.emptyNamespace {
		return true
	}
	return req.verb == registry.VerbList || req.verb == registry.VerbWatch
}

// checkEmptyNamespace answers as kube-apiserver does a URL whose
// namespace segment is empty: it is routed as a namespace, lists and
// watches every namespace, creates nothing (the object loses its
// namespace, a 422 in create) and refuses every other verb.
func checkEmptyNamespace(res *registry.Resource, req *request) error {
	if !req.emptyNamespace || !res.Namespaced {
		return nil
	}
	switch req.verb {
	case registry.VerbList, registry.VerbWatch, registry.VerbCreate:
		return nil
	}
	return apierror.BadRequest("Namespace parameter required.")
}

// waitRouting waits, briefly, until the watch cache has applied every
// acknowledged write.
func (s *Server) waitRouting(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, tooLargeWait)
	defer cancel()
	_ = s.cache.WaitFresh(ctx)
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
