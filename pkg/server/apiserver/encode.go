package apiserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// writeStatus writes an API error as a JSON Status; every client decodes
// JSON errors whatever it asked for.
func writeStatus(w http.ResponseWriter, e *apierror.StatusError) {
	b, _ := json.Marshal(&e.Status)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache, private")
	if e.Status.Details != nil && e.Status.Details.RetryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(int(e.Status.Details.RetryAfterSeconds)))
	}
	w.WriteHeader(int(e.Status.Code))
	_, _ = w.Write(b)
}

// writeSuccess writes a Status with status Success, as deletes of
// built-in kinds answer.
func writeSuccess(w http.ResponseWriter, res *registry.Resource, name, uid string) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: name, Group: res.Group, Kind: res.Plural},
	}
	st.Details.UID = types.UID(uid)
	b, _ := json.Marshal(&st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// writeObject writes one object, given as served JSON, in the format the
// client asked for.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, res *registry.Resource, code int, obj []byte) error {
	f, err := negotiate(r.Header.Get("Accept"), res, targetObject)
	if err != nil {
		return err
	}
	obj, err = servedVersion(res, obj)
	if err != nil {
		return err
	}
	var body []byte
	contentType := "application/json"
	switch f {
	case fmtJSON:
		body = obj
	case fmtYAML:
		contentType = "application/yaml"
		if body, err = jsonToYAML(obj); err != nil {
			return apierror.Internal(err)
		}
	case fmtProtobuf:
		contentType = protobuf.ContentType
		if body, err = protobuf.Default().EncodeObject(res.GroupVersionKind(), obj); err != nil {
			return apierror.Internal(err)
		}
	case fmtTable:
		t, err := s.table(res, [][]byte{obj}, r.URL.Query().Get("includeObject"), true)
		if err != nil {
			return err
		}
		body, _ = json.Marshal(t)
	case fmtPartial:
		if body, err = partialObject(obj); err != nil {
			return apierror.Internal(err)
		}
	case fmtPartialProto:
		contentType = protobuf.ContentType
		if body, err = protobuf.Default().EncodeObject(partialGVK, obj); err != nil {
			return apierror.Internal(err)
		}
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return nil
}

// listMeta is what a list response says about itself.
type listMeta = generic.ListMeta

// writeList writes a list of served objects. JSON lists are streamed
// item by item from the cache's bytes, so a large list costs little more
// than the response itself.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, res *registry.Resource, items []*watchcache.Object, meta listMeta) error {
	f, err := negotiate(r.Header.Get("Accept"), res, targetList)
	if err != nil {
		return err
	}
	switch f {
	case fmtJSON:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		mb, _ := json.Marshal(meta)
		bw := newBufferedWriter(w)
		bw.WriteString(`{"kind":`)
		bw.WriteQuoted(res.ListKind)
		bw.WriteString(`,"apiVersion":`)
		bw.WriteQuoted(res.APIVersion())
		bw.WriteString(`,"metadata":`)
		bw.Write(mb)
		bw.WriteString(`,"items":[`)
		for i, o := range items {
			if i > 0 {
				bw.WriteString(",")
			}
			b := o.JSON
			if o.APIVersion != res.APIVersion() {
				if b, err = servedVersion(res, o.JSON); err != nil {
					b = o.JSON
				}
			}
			if res.Typed {
				b = withoutTypeMeta(b)
			}
			bw.Write(b)
		}
		bw.WriteString("]}\n")
		return bw.Flush()
	case fmtProtobuf:
		// Items are the objects' kept protobuf messages, streamed: a
		// protobuf LIST costs about what a JSON one does.
		gvk := res.GroupVersionKind()
		raw := make([][]byte, len(items))
		for i, o := range items {
			if raw[i], err = protoItem(gvk, o); err != nil {
				return apierror.Internal(err)
			}
		}
		w.Header().Set("Content-Type", protobuf.ContentType)
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 32<<10)
		lm := metav1.ListMeta{ResourceVersion: meta.ResourceVersion, Continue: meta.Continue, RemainingItemCount: meta.RemainingItemCount}
		if err := protobuf.Default().WriteList(bw, res.GroupVersion().WithKind(res.ListKind), lm, raw); err == nil {
			_ = bw.Flush()
		}
		return nil
	case fmtPartialProto:
		raw := make([][]byte, len(items))
		for i, o := range items {
			raw[i] = o.JSON
		}
		lm := metav1.ListMeta{ResourceVersion: meta.ResourceVersion, Continue: meta.Continue, RemainingItemCount: meta.RemainingItemCount}
		body, err := protobuf.Default().EncodeList(partialListGVK, lm, raw)
		if err != nil {
			return apierror.Internal(err)
		}
		w.Header().Set("Content-Type", protobuf.ContentType)
		_, _ = w.Write(body)
		return nil
	case fmtTable:
		raw := make([][]byte, len(items))
		for i, o := range items {
			raw[i] = o.JSON
		}
		t, err := s.table(res, raw, r.URL.Query().Get("includeObject"), true)
		if err != nil {
			return err
		}
		t.ResourceVersion, t.Continue, t.RemainingItemCount = meta.ResourceVersion, meta.Continue, meta.RemainingItemCount
		body, _ := json.Marshal(t)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return nil
	case fmtPartial:
		w.Header().Set("Content-Type", "application/json")
		mb, _ := json.Marshal(meta)
		var buf bytes.Buffer
		buf.WriteString(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":`)
		buf.Write(mb)
		buf.WriteString(`,"items":[`)
		for i, o := range items {
			if i > 0 {
				buf.WriteByte(',')
			}
			p, err := partialObject(o.JSON)
			if err != nil {
				return apierror.Internal(err)
			}
			buf.Write(p)
		}
		buf.WriteString("]}\n")
		_, _ = w.Write(buf.Bytes())
		return nil
	case fmtYAML:
		var buf bytes.Buffer
		_ = s.writeList(&bufferResponse{header: http.Header{}, buf: &buf}, jsonOnly(r), res, items, meta)
		body, err := jsonToYAML(buf.Bytes())
		if err != nil {
			return apierror.Internal(err)
		}
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(body)
		return nil
	}
	return nil
}

// partialObject reduces an object to PartialObjectMetadata.
func partialObject(obj []byte) ([]byte, error) {
	var head struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &head); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`)
	buf.Write(head.Metadata)
	buf.WriteString("}")
	return buf.Bytes(), nil
}
