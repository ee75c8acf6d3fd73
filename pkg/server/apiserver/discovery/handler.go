package discovery

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// Handler serves the discovery documents of a registry. It is safe for
// concurrent use.
type Handler struct {
	reg *registry.Registry

	cur atomic.Pointer[snapshot]
	mu  sync.Mutex // serializes rebuilds
}

// New returns a Handler serving reg's resources as they change.
func New(reg *registry.Registry) *Handler {
	return &Handler{reg: reg}
}

// route is the kind of discovery path a request names.
type route int

const (
	routeNone         route = iota
	routeAPI                // /api
	routeAPIs               // /apis
	routeCoreVersion        // /api/<version>
	routeGroup              // /apis/<group>
	routeGroupVersion       // /apis/<group>/<version>
)

// parsePath classifies a URL path. One trailing slash is allowed.
func parsePath(path string) (rt route, group, version string) {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return routeNone, "", ""
	}
	rest = strings.TrimSuffix(rest, "/")
	parts := strings.Split(rest, "/")
	for _, p := range parts {
		if p == "" {
			return routeNone, "", ""
		}
	}
	switch {
	case parts[0] == "api" && len(parts) == 1:
		return routeAPI, "", ""
	case parts[0] == "api" && len(parts) == 2:
		return routeCoreVersion, "", parts[1]
	case parts[0] == "apis" && len(parts) == 1:
		return routeAPIs, "", ""
	case parts[0] == "apis" && len(parts) == 2:
		return routeGroup, parts[1], ""
	case parts[0] == "apis" && len(parts) == 3:
		return routeGroupVersion, parts[1], parts[2]
	}
	return routeNone, "", ""
}

// Match reports whether path is a discovery path: /api, /api/<version>,
// /apis, /apis/<group> or /apis/<group>/<version>, with at most one
// trailing slash. Paths below those (/api/v1/namespaces) are resource
// paths and do not match. A discovery path for a group or version that
// is not served still matches; the Handler answers it with 404.
func Match(path string) bool {
	rt, _, _ := parsePath(path)
	return rt != routeNone
}

// ServeHTTP answers GET and HEAD on discovery paths; see the package
// documentation. Anything else on a non-discovery path is 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, group, version := parsePath(r.URL.Path)
	if rt == routeNone {
		writeRaw(w, http.StatusNotFound, contentTypeJSON, statusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeRaw(w, http.StatusMethodNotAllowed, contentTypeJSON, statusMethodNotAllowed)
		return
	}
	s, err := h.snapshot()
	if err != nil {
		internalError(w, err)
		return
	}
	accept := strings.Join(r.Header.Values("Accept"), ",")

	var doc *document
	switch rt {
	case routeAPI, routeAPIs:
		// The same URL answers different documents by Accept.
		w.Header().Add("Vary", "Accept")
		f := negotiate(accept, true)
		switch {
		case f == formatNone:
			writeRaw(w, http.StatusNotAcceptable, contentTypeJSON, statusNotAcceptableRoot)
		case f == formatLegacy && rt == routeAPI:
			body, err := s.apiVersionsBody(r.Host)
			if err != nil {
				internalError(w, err)
				return
			}
			writeRaw(w, http.StatusOK, contentTypeJSON, body)
		case f == formatLegacy:
			writeRaw(w, http.StatusOK, contentTypeJSON, s.groupList.body)
		case rt == routeAPI:
			serveWithETag(w, r, f.contentType(), s.aggregatedCore[f])
		default:
			serveWithETag(w, r, f.contentType(), s.aggregated[f])
		}
		return
	case routeCoreVersion:
		doc = s.resourceLists[schema.GroupVersion{Version: version}]
	case routeGroup:
		doc = s.groups[group]
	case routeGroupVersion:
		doc = s.resourceLists[schema.GroupVersion{Group: group, Version: version}]
	}
	if doc == nil {
		writeRaw(w, http.StatusNotFound, contentTypeJSON, statusNotFound)
		return
	}
	if negotiate(accept, false) == formatNone {
		writeRaw(w, http.StatusNotAcceptable, contentTypeJSON, statusNotAcceptable)
		return
	}
	writeRaw(w, http.StatusOK, contentTypeJSON, doc.body)
}

// snapshot returns the documents of the registry's current generation,
// rebuilding them if the registry changed since they were built.
func (h *Handler) snapshot() (*snapshot, error) {
	if s := h.cur.Load(); s != nil && !s.stale() {
		return s, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.cur.Load(); s != nil && !s.stale() {
		return s, nil
	}
	// The change channel is taken before the resources are read: a
	// change in between closes it, so the next request rebuilds again.
	_, changed := h.reg.Changed()
	s, err := build(changed, h.reg.Resources())
	if err != nil {
		return nil, err
	}
	h.cur.Store(s)
	return s, nil
}

// serveWithETag writes doc with its ETag, or 304 Not Modified when the
// request's If-None-Match already names it. The headers match what
// kube-apiserver sends with aggregated discovery.
func serveWithETag(w http.ResponseWriter, r *http.Request, contentType string, doc *document) {
	h := w.Header()
	h.Set("ETag", doc.etag)
	h.Set("Cache-Control", "public")
	if etagMatches(strings.Join(r.Header.Values("If-None-Match"), ","), doc.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeRaw(w, http.StatusOK, contentType, doc.body)
}

// etagMatches reports whether an If-None-Match header names etag, by the
// weak comparison RFC 9110 prescribes for If-None-Match.
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

func writeRaw(w http.ResponseWriter, code int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func internalError(w http.ResponseWriter, err error) {
	writeRaw(w, http.StatusInternalServerError, contentTypeJSON, mustEncodeStatus(&metav1.Status{
		Status:  metav1.StatusFailure,
		Message: err.Error(),
		Reason:  metav1.StatusReasonInternalError,
		Code:    http.StatusInternalServerError,
	}))
}

func mustEncodeStatus(s *metav1.Status) []byte {
	s.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	b, err := json.Marshal(s)
	if err != nil {
		panic("discovery: encoding Status: " + err.Error())
	}
	return b
}

// Error bodies that do not depend on the request.
var (
	statusNotFound = mustEncodeStatus(&metav1.Status{
		Status:  metav1.StatusFailure,
		Message: "the server could not find the requested resource",
		Reason:  metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{},
		Code:    http.StatusNotFound,
	})
	statusMethodNotAllowed = mustEncodeStatus(&metav1.Status{
		Status:  metav1.StatusFailure,
		Message: "the server does not allow this method on the requested resource",
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{},
		Code:    http.StatusMethodNotAllowed,
	})
	statusNotAcceptableRoot = notAcceptable(contentTypeJSON, contentTypeV2, contentTypeV2Beta1)
	statusNotAcceptable     = notAcceptable(contentTypeJSON)
)

func notAcceptable(offered ...string) []byte {
	return mustEncodeStatus(&metav1.Status{
		Status:  metav1.StatusFailure,
		Message: "only the following media types are accepted: " + strings.Join(offered, ", "),
		Reason:  metav1.StatusReasonNotAcceptable,
		Code:    http.StatusNotAcceptable,
	})
}
