package response

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// ListMeta is what a list response says about itself: the store's.
type ListMeta = generic.ListMeta

// List writes a list of served objects. JSON lists are streamed
// item by item from the cache's bytes, so a large list costs little more
// than the response itself.
func (enc Encoder) List(w http.ResponseWriter, r *http.Request, res *registry.Resource, items []*watchcache.Object, meta ListMeta) error {
	f, err := Negotiate(r.Header.Get("Accept"), res, TargetList)
	if err != nil {
		return err
	}
	switch f {
	case FormatJSON:
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
			b := o.Served()
			converted := false
			if o.APIVersion != res.APIVersion() {
				if v, err := generic.ServedVersion(res, b); err == nil {
					b, converted = v, true
				}
			}
			switch {
			case !res.Typed:
				bw.Write(b)
			case converted:
				writeCut(bw, b, typeMetaCuts(b))
			default:
				// Where the cuts fall is found once per object, not
				// on every list.
				writeCut(bw, b, o.Cuts(typeMetaCuts))
			}
		}
		bw.WriteString("]}\n")
		return bw.Flush()
	case FormatProtobuf:
		// Items are the objects' kept protobuf messages, streamed: a
		// protobuf LIST costs about what a JSON one does.
		gvk := res.GroupVersionKind()
		raw := make([][]byte, len(items))
		for i, o := range items {
			if raw[i], err = ProtoItem(gvk, o); err != nil {
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
	case FormatPartialProto:
		raw := make([][]byte, len(items))
		for i, o := range items {
			if raw[i], err = PartialProtoItem(o.Served()); err != nil {
				return apierror.Internal(err)
			}
		}
		w.Header().Set("Content-Type", protobuf.ContentType)
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 32<<10)
		lm := metav1.ListMeta{ResourceVersion: meta.ResourceVersion, Continue: meta.Continue, RemainingItemCount: meta.RemainingItemCount}
		if err := protobuf.Default().WriteList(bw, partialListGVK, lm, raw); err == nil {
			_ = bw.Flush()
		}
		return nil
	case FormatTable:
		raw := make([][]byte, len(items))
		for i, o := range items {
			raw[i] = o.Served()
		}
		t, err := Table(res, raw, r.URL.Query().Get("includeObject"), true, enc.Now())
		if err != nil {
			return err
		}
		t.ResourceVersion, t.Continue, t.RemainingItemCount = meta.ResourceVersion, meta.Continue, meta.RemainingItemCount
		body, _ := json.Marshal(t)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return nil
	case FormatPartial:
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
			p, err := PartialObject(o.Served())
			if err != nil {
				return apierror.Internal(err)
			}
			buf.Write(p)
		}
		buf.WriteString("]}\n")
		_, _ = w.Write(buf.Bytes())
		return nil
	case FormatYAML:
		var buf bytes.Buffer
		_ = enc.List(&bufferResponse{header: http.Header{}, buf: &buf}, jsonOnly(r), res, items, meta)
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
