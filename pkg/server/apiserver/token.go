package apiserver

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// tokenRequestKind describes authentication.k8s.io/v1 TokenRequest
// bodies and answers.
var tokenRequestKind = &registry.Resource{
	Group: authenticationv1.GroupName, Version: "v1", Kind: "TokenRequest", Plural: "tokenrequests",
	Namespaced: true, Typed: true,
}

// issueToken serves POST on an object's token subresource
// (serviceaccounts/token, as `kubectl create token` asks): the body is a
// TokenRequest, the answer the same with its token in status, 201.
func (s *Server) issueToken(w http.ResponseWriter, r *http.Request, req *request) error {
	u, warnings, err := params.DecodeObject(w, r, tokenRequestKind, req.name, req.query)
	if err != nil {
		return err
	}
	// dryRun must be valid, but kube-apiserver issues the token anyway.
	if _, err := params.DryRun(req.query); err != nil {
		return err
	}
	setWarnings(w, warnings)
	b, warnings, err := s.objects.IssueToken(r.Context(), req.res, req.namespace, req.name, u)
	if err != nil {
		return err
	}
	setWarnings(w, warnings)
	return s.writeObject(w, r, tokenRequestKind, http.StatusCreated, b)
}
