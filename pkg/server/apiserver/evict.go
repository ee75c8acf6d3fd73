package apiserver

import (
	"net/http"
	"net/url"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// evictionKind describes policy/v1 Eviction bodies for decoding.
var evictionKind = &registry.Resource{Group: "policy", Version: "v1", Kind: "Eviction", Plural: "evictions", Namespaced: true, Typed: true}

// evict serves POST on an object's eviction subresource (pods/eviction,
// as kubectl drain evicts): the body is a policy/v1 Eviction, whose
// deleteOptions apply to the delete; the answer a Success Status with
// code 201, as kube-apiserver answers it.
func (s *Server) evict(w http.ResponseWriter, r *http.Request, req *request) error {
	u, _, err := params.DecodeObject(w, r, evictionKind, req.name, req.query)
	if err != nil {
		return err
	}
	var ev policyv1.Eviction
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ev); err != nil {
		return apierror.BadRequest("%v", err)
	}
	d := ev.DeleteOptions
	if d == nil {
		d = &metav1.DeleteOptions{}
	}
	if p := d.IgnoreStoreReadErrorWithClusterBreakingPotential; p != nil && *p {
		return apierror.Invalid(schema.GroupKind{Group: "policy", Kind: "Eviction"}, req.name, field.ErrorList{field.Invalid(
			field.NewPath("deleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential"), true,
			"can not be set for pod eviction, try after removing the option")})
	}
	// The delete's own parameters come from deleteOptions; only dryRun
	// comes from the create's query.
	opts, err := params.FromDeleteOptions(d, url.Values{"dryRun": req.query["dryRun"]})
	if err != nil {
		return err
	}
	if err := s.objects.Evict(r.Context(), req.res, req.namespace, req.name, ev.Name, opts); err != nil {
		return err
	}
	response.WriteCreated(w)
	return nil
}
