package apiserver

import (
	"encoding/json"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var selfSubjectReviewGR = schema.GroupResource{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}

// Identifier is an Authenticator that can also say who a request's
// credentials belong to.
type Identifier interface {
	Identify(r *http.Request) (authenticationv1.UserInfo, bool)
}

// anonymous is who a request is when the server checks no credentials.
var anonymous = authenticationv1.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}

// selfSubjectReview answers a SelfSubjectReview create with the caller's
// identity, which is what kubectl auth whoami prints. Nothing is stored.
func (s *Server) selfSubjectReview(w http.ResponseWriter, r *http.Request, req *request) error {
	if _, _, err := s.decodeObject(w, r, req); err != nil {
		return err
	}
	user := anonymous
	if id, ok := s.cfg.Authenticator.(Identifier); ok {
		if info, ok := id.Identify(r); ok {
			user = info
		}
	}
	out := map[string]any{
		"apiVersion": req.res.APIVersion(),
		"kind":       req.res.Kind,
		"metadata":   map[string]any{"creationTimestamp": nil},
		"status":     map[string]any{"userInfo": user},
	}
	b, err := json.Marshal(out)
	if err != nil {
		return apierror.Internal(err)
	}
	return s.writeObject(w, r, req.res, http.StatusCreated, b)
}
