package params

import (
	"net/http"
	"net/url"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// deleteOptionsKind describes DeleteOptions bodies for content negotiation.
var deleteOptionsKind = &registry.Resource{Version: "v1", Kind: "DeleteOptions", Typed: true}

// DeleteOptions reads DeleteOptions from the body (JSON or
// protobuf, possibly empty) and the query.
func DeleteOptions(w http.ResponseWriter, r *http.Request, q url.Values) (generic.DeleteOptions, error) {
	var opts generic.DeleteOptions
	var do metav1.DeleteOptions
	body, err := ReadBody(w, r)
	if err != nil {
		return opts, err
	}
	if len(body) > 0 {
		bf, err := response.RequestFormat(r.Header.Get("Content-Type"), deleteOptionsKind)
		if err != nil {
			return opts, err
		}
		switch bf {
		case response.BodyProtobuf:
			_, js, err := protobuf.Default().DecodeToJSON(body)
			if err != nil {
				return opts, apierror.BadRequest("the body is not valid DeleteOptions: %v", err)
			}
			body = js
		case response.BodyYAML:
			return opts, apierror.BadRequest("DeleteOptions must be JSON or protobuf")
		}
		if err := UnmarshalJSON(body, &do); err != nil {
			return opts, apierror.BadRequest("the body is not valid DeleteOptions: %v", err)
		}
	}
	return FromDeleteOptions(&do, q)
}

// FromDeleteOptions reads do and the query's delete parameters over
// it, as kube-apiserver does (an Eviction's deleteOptions and the
// create's dryRun).
func FromDeleteOptions(do *metav1.DeleteOptions, q url.Values) (generic.DeleteOptions, error) {
	var opts generic.DeleteOptions
	opts.GracePeriodSeconds = do.GracePeriodSeconds
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return opts, apierror.BadRequest("invalid gracePeriodSeconds %q", v)
		}
		// The query is decoded over the body, as kube-apiserver does.
		opts.GracePeriodSeconds = &n
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
	dry, err := DryRun(q)
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
