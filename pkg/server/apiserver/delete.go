package apiserver

import (
	"net/http"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// deleteOptionsKind describes DeleteOptions bodies for content negotiation.
var deleteOptionsKind = &registry.Resource{Version: "v1", Kind: "DeleteOptions", Typed: true}

// parseDeleteOptions reads DeleteOptions from the body (JSON or
// protobuf, possibly empty) and the query.
func parseDeleteOptions(w http.ResponseWriter, r *http.Request, req *request) (generic.DeleteOptions, error) {
	var opts generic.DeleteOptions
	var do metav1.DeleteOptions
	body, err := readBody(w, r)
	if err != nil {
		return opts, err
	}
	if len(body) > 0 {
		bf, err := requestFormat(r.Header.Get("Content-Type"), deleteOptionsKind)
		if err != nil {
			return opts, err
		}
		switch bf {
		case bodyProtobuf:
			_, js, err := protobuf.Default().DecodeToJSON(body)
			if err != nil {
				return opts, apierror.BadRequest("the body is not valid DeleteOptions: %v", err)
			}
			body = js
		case bodyYAML:
			return opts, apierror.BadRequest("DeleteOptions must be JSON or protobuf")
		}
		if err := unmarshalJSON(body, &do); err != nil {
			return opts, apierror.BadRequest("the body is not valid DeleteOptions: %v", err)
		}
	}
	q := req.query
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return opts, apierror.BadRequest("invalid gracePeriodSeconds %q", v)
		}
	}
	// orphanDependents is deprecated in favour of propagationPolicy, but
	// clients still send it and kube-apiserver still honours it.
	//lint:ignore SA1019 see above
	orphan := do.OrphanDependents
	switch v := q.Get("orphanDependents"); v {
	case "":
	case "true", "false":
		b := v == "true"
		orphan = &b
	default:
		return opts, apierror.BadRequest("invalid orphanDependents %q", v)
	}
	policy := q.Get("propagationPolicy")
	if do.PropagationPolicy != nil {
		policy = string(*do.PropagationPolicy)
	}
	switch metav1.DeletionPropagation(policy) {
	case "", metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan:
	default:
		return opts, apierror.BadRequest("propagationPolicy must be Orphan, Background or Foreground, not %q", policy)
	}
	if policy != "" && orphan != nil {
		return opts, apierror.Invalid(schema.GroupKind{Kind: "DeleteOptions"}, "", field.ErrorList{
			field.Invalid(field.NewPath("propagationPolicy"), policy, "orphanDependents and propagationPolicy cannot both be set"),
		})
	}
	opts.PropagationPolicy, opts.OrphanDependents = metav1.DeletionPropagation(policy), orphan
	dry, err := parseDryRun(req)
	if err != nil {
		return opts, err
	}
	for _, v := range do.DryRun {
		if v != "All" {
			return opts, apierror.BadRequest("dryRun must be All, not %q", v)
		}
		dry = true
	}
	opts.DryRun = dry
	if p := do.Preconditions; p != nil {
		if p.UID != nil {
			s := string(*p.UID)
			opts.UID = &s
		}
		opts.ResourceVersion = p.ResourceVersion
	}
	return opts, nil
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, req *request) error {
	opts, err := parseDeleteOptions(w, r, req)
	if err != nil {
		return err
	}
	out, err := s.objects.Delete(r.Context(), req.res, req.namespace, req.name, opts)
	if err != nil {
		return err
	}
	if out.Gone && !req.res.AnswersDeleteWithObject() {
		// Built-in kinds answer an immediate delete with a Status, as
		// kube-apiserver does.
		writeSuccess(w, req.res, req.name, string(out.Object.GetUID()))
		return nil
	}
	return s.writeObject(w, r, req.res, http.StatusOK, out.JSON)
}

func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, req *request) error {
	opts, err := parseDeleteOptions(w, r, req)
	if err != nil {
		return err
	}
	sel, err := parseSelection(req.query, req.res)
	if err != nil {
		return err
	}
	items, rev, err := s.objects.DeleteCollection(r.Context(), req.res, req.namespace, sel.match(), opts)
	if err != nil {
		return err
	}
	return s.writeList(w, r, req.res, items, listMeta{ResourceVersion: strconv.FormatInt(rev, 10)})
}
