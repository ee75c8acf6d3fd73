package serviceaccount

import (
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
)

// Names of service account users, groups and user extras, as
// kube-apiserver spells them.
const (
	UsernamePrefix          = "system:serviceaccount:"
	AllServiceAccountsGroup = "system:serviceaccounts"
	NamespaceGroupPrefix    = "system:serviceaccounts:"
	AuthenticatedGroup      = "system:authenticated"

	ExtraPodName      = "authentication.kubernetes.io/pod-name"
	ExtraPodUID       = "authentication.kubernetes.io/pod-uid"
	ExtraNodeName     = "authentication.kubernetes.io/node-name"
	ExtraNodeUID      = "authentication.kubernetes.io/node-uid"
	ExtraCredentialID = "authentication.kubernetes.io/credential-id"
)

// MakeUsername is a service account's username,
// system:serviceaccount:<namespace>:<name>.
func MakeUsername(namespace, name string) string {
	return UsernamePrefix + namespace + ":" + name
}

// SplitUsername is MakeUsername's inverse; ok is false for names that
// are not a service account's (kube also requires a valid namespace and
// service account name).
func SplitUsername(username string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(username, UsernamePrefix)
	if !found {
		return "", "", false
	}
	namespace, name, found = strings.Cut(rest, ":")
	if !found || strings.Contains(name, ":") ||
		len(apivalidation.ValidateNamespaceName(namespace, false)) > 0 ||
		len(apivalidation.ValidateServiceAccountName(name, false)) > 0 {
		return "", "", false
	}
	return namespace, name, true
}

// UserInfo is the user a valid token authenticates as, as a TokenReview
// reports it: the service account's username and UID, its groups and
// system:authenticated, and extras naming the pod (and its node) or the
// node the token is bound to and the token itself (credential-id
// JTI=<jti>).
func UserInfo(c *Claims) authenticationv1.UserInfo {
	u := authenticationv1.UserInfo{
		Username: MakeUsername(c.Namespace, c.ServiceAccount.Name),
		UID:      c.ServiceAccount.UID,
		Groups:   []string{AllServiceAccountsGroup, NamespaceGroupPrefix + c.Namespace, AuthenticatedGroup},
	}
	extra := map[string]authenticationv1.ExtraValue{}
	if p := c.Pod; p != nil && p.Name != "" && p.UID != "" {
		extra[ExtraPodName] = authenticationv1.ExtraValue{p.Name}
		extra[ExtraPodUID] = authenticationv1.ExtraValue{p.UID}
	}
	if c.ID != "" {
		extra[ExtraCredentialID] = authenticationv1.ExtraValue{"JTI=" + c.ID}
	}
	if n := c.Node; n != nil && n.Name != "" {
		extra[ExtraNodeName] = authenticationv1.ExtraValue{n.Name}
		if n.UID != "" {
			extra[ExtraNodeUID] = authenticationv1.ExtraValue{n.UID}
		}
	}
	if len(extra) > 0 {
		u.Extra = extra
	}
	return u
}
