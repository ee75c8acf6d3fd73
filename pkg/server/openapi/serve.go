package openapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Media types of the documents. Clients ask for protobuf by either name;
// the first of each pair is what responses are labeled.
const (
	typeJSON         = "application/json"
	typeV2Proto      = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	typeV2ProtoOld   = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	typeV3Proto      = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	typeV3ProtoOld   = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
	v2Path, v3Path   = "/openapi/v2", "/openapi/v3"
	immutableMaxTime = 365 * 24 * time.Hour
)

// offer is one way to answer: a media type a client may ask for, the
// Content-Type of the answer and the document format.
type offer struct {
	mediaType, contentType string
	format                 format
}

var (
	v2Offers = []offer{{typeJSON, typeJSON, v2JSON}, {typeV2Proto, typeV2Proto, v2Proto}, {typeV2ProtoOld, typeV2Proto, v2Proto}}
	v3Offers = []offer{{typeJSON, typeJSON, v3JSON}, {typeV3Proto, typeV3Proto, v3Proto}, {typeV3ProtoOld, typeV3Proto, v3Proto}}
)

// ServeHTTP answers GET and HEAD of /openapi/v2, /openapi/v3 (the index)
// and /openapi/v3/<api/v1|apis/group/version>, as kube-apiserver does: by
// Accept header (JSON or protobuf), with ETags and 304 for a matching
// If-None-Match. A v3 document asked for with the hash the index gives
// may be cached forever; with another hash the answer redirects to the
// current one. Errors are metav1.Status: 404 for unknown paths, 406 when
// no acceptable media type is available.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeStatus(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on "+r.URL.Path)
		return
	}
	switch p := strings.TrimSuffix(r.URL.Path, "/"); {
	case p == v2Path:
		o, ok := negotiate(w, r, v2Offers)
		if !ok {
			return
		}
		serveDoc(w, r, o, func(body bool) (*builtDoc, error) { return s.v2Doc(o.format, body) })
	case p == v3Path:
		// Like kube-apiserver, the index is JSON whatever the client
		// accepts: clients fetch it with their default Accept header,
		// which may name only their preferred object encoding.
		serveDoc(w, r, offer{typeJSON, typeJSON, v3JSON}, func(bool) (*builtDoc, error) { return s.indexDoc() })
	case strings.HasPrefix(p, v3Path+"/"):
		s.serveGroupVersion(w, r, strings.TrimPrefix(p, v3Path+"/"))
	default:
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find "+r.URL.Path)
	}
}

func (s *Service) serveGroupVersion(w http.ResponseWriter, r *http.Request, gvPath string) {
	g := s.lookup(gvPath)
	if g == nil {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no OpenAPI document for "+gvPath)
		return
	}
	o, ok := negotiate(w, r, v3Offers)
	if !ok {
		return
	}
	d, err := g.v3Doc(o.format, false)
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
		return
	}
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != d.hash {
			http.Redirect(w, r, v3URL(gvPath, d.hash), http.StatusMovedPermanently)
			return
		}
		// The URL names this content: it never changes.
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", time.Now().Add(immutableMaxTime).UTC().Format(http.TimeFormat))
	}
	serveDoc(w, r, o, func(body bool) (*builtDoc, error) { return g.v3Doc(o.format, body) })
}

// serveDoc writes a document, or 304 if the client has it. load returns
// the document, with its content if body is set.
func serveDoc(w http.ResponseWriter, r *http.Request, o offer, load func(body bool) (*builtDoc, error)) {
	d, err := load(false)
	if err == nil && etagMatches(r.Header.Get("If-None-Match"), strconv.Quote(d.hash)) {
		w.Header().Set("ETag", strconv.Quote(d.hash))
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if err == nil && d.chunks == nil {
		d, err = load(true)
	}
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
		return
	}
	h := w.Header()
	h.Set("ETag", strconv.Quote(d.hash))
	h.Set("Content-Type", o.contentType)
	h.Set("Content-Length", strconv.Itoa(d.size))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	for _, c := range d.chunks {
		if _, err := w.Write(c); err != nil {
			return
		}
	}
}

// etagMatches reports whether an If-None-Match header names etag.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// negotiate picks the offer the Accept header prefers, or answers 406.
// It sets Vary: Accept, since the answer depends on it.
func negotiate(w http.ResponseWriter, r *http.Request, offers []offer) (offer, bool) {
	w.Header().Add("Vary", "Accept")
	accept := r.Header.Get("Accept")
	if strings.TrimSpace(accept) == "" {
		accept = "*/*"
	}
	for _, c := range parseAccept(accept) {
		for _, o := range offers {
			if c.matches(o.mediaType) {
				return o, true
			}
		}
	}
	types := make([]string, len(offers))
	for i, o := range offers {
		types[i] = o.mediaType
	}
	writeStatus(w, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: "+strings.Join(types, ", "))
	return offer{}, false
}

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	typ, subtype string
	q            float64
}

func (c acceptClause) matches(mediaType string) bool {
	typ, subtype, _ := strings.Cut(mediaType, "/")
	return (c.typ == "*" || c.typ == typ) && (c.subtype == "*" || c.subtype == subtype)
}

// parseAccept returns the acceptable media ranges of an Accept header,
// most preferred first; ranges with q=0 are left out.
func parseAccept(header string) []acceptClause {
	var out []acceptClause
	for _, part := range strings.Split(header, ",") {
		mediaRange, params, _ := strings.Cut(part, ";")
		typ, subtype, ok := strings.Cut(strings.ToLower(strings.TrimSpace(mediaRange)), "/")
		if !ok {
			continue
		}
		c := acceptClause{typ: strings.TrimSpace(typ), subtype: strings.TrimSpace(subtype), q: 1}
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "q") {
				if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					c.q = q
				}
			}
		}
		if c.q > 0 {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// writeStatus answers with a failure Status, as the API server's errors are.
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	body, _ := json.Marshal(&metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: message, Reason: reason, Code: int32(code),
	})
	w.Header().Set("Content-Type", typeJSON)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
