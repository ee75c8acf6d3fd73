package filters

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// Authorize asks az whether r's caller may do what r asks, before the
// request is routed, as kube-apiserver's authorization filter does. It
// returns nil when the request may go on, else the Status to answer: a
// 403 worded as kube's, or a 500 when the policy could not be read.
// Members of system:masters pass without a policy lookup.
func Authorize(r *http.Request, az authorizer.Authorizer) *apierror.StatusError {
	u := user.Caller(r.Context())
	if authorizer.IsPrivileged(u) {
		return nil
	}
	a := Attributes(r, u)
	d, reason, err := az.Authorize(r.Context(), a)
	switch {
	case d == authorizer.Allow:
		return nil
	case err != nil:
		return apierror.Internal(err)
	}
	return Forbidden(a, reason)
}

// Forbidden is the 403 refusing a, with the authorizer's reason when it
// gave one.
func Forbidden(a authorizer.Attributes, reason string) *apierror.StatusError {
	msg := htmlEscaper.Replace(authorizer.ForbiddenMessage(a))
	if reason != "" {
		msg += ": " + reason
	}
	gr := schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	return apierror.Forbidden(gr, a.Name, msg)
}
