package filters

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// serviceAccountPrefix starts the user name of every ServiceAccount.
const serviceAccountPrefix = "system:serviceaccount:"

// ErrImpersonation is a malformed set of impersonation headers: groups,
// extras or a UID without a user to impersonate.
var ErrImpersonation = errors.New("impersonation")

// impersonationError is kube's wording of ErrImpersonation, which it
// answers with a plain-text 500.
type impersonationError struct{ requests []corev1.ObjectReference }

func (e *impersonationError) Error() string {
	return fmt.Sprintf("requested %v without impersonating a user", e.requests)
}

func (e *impersonationError) Is(target error) bool { return target == ErrImpersonation }

// Impersonate turns a request carrying Impersonate-* headers into one made
// by the user they name, once az allows the caller to impersonate each
// part (verb impersonate on users, groups, serviceaccounts, uids and
// userextras/<key>), as kube-apiserver's impersonation filter does. It
// returns the request as the impersonated user, without the headers; a
// refusal is the attributes that were refused and why, for a 403.
func Impersonate(r *http.Request, az authorizer.Authorizer) (*http.Request, *authorizer.Attributes, string, error) {
	requests, err := impersonationRequests(r.Header)
	if err != nil || len(requests) == 0 {
		return r, nil, "", err
	}
	ctx := r.Context()
	caller := user.Caller(ctx)
	_, groupsGiven := r.Header[authenticationv1.ImpersonateGroupHeader]
	as := authenticationv1.UserInfo{}
	for _, req := range requests {
		a := authorizer.Attributes{
			User: caller, Verb: "impersonate", ResourceRequest: true,
			Namespace: req.Namespace, Name: req.Name,
		}
		switch req.Kind {
		case "ServiceAccount":
			a.Resource = "serviceaccounts"
			as.Username = serviceAccountPrefix + req.Namespace + ":" + req.Name
			if !groupsGiven {
				as.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + req.Namespace}
			}
		case "User":
			a.Resource = "users"
			as.Username = req.Name
		case "Group":
			a.Resource = "groups"
			as.Groups = append(as.Groups, req.Name)
		case "UserExtra":
			a.APIGroup, a.APIVersion = authenticationv1.GroupName, "v1"
			a.Resource, a.Subresource = "userextras", req.FieldPath
			if as.Extra == nil {
				as.Extra = map[string]authenticationv1.ExtraValue{}
			}
			as.Extra[req.FieldPath] = append(as.Extra[req.FieldPath], req.Name)
		case "UID":
			a.APIGroup, a.APIVersion = authenticationv1.GroupName, "v1"
			a.Resource = "uids"
			as.UID = req.Name
		}
		d, reason, err := az.Authorize(ctx, a)
		if err != nil || d != authorizer.Allow {
			return r, &a, reason, nil
		}
	}
	as.Groups = withEveryoneGroup(as.Username, as.Groups)
	r = r.WithContext(user.WithInfo(ctx, as))
	// The handler below must not see them: a proxied request would
	// impersonate again.
	r.Header = r.Header.Clone()
	for name := range r.Header {
		if name == authenticationv1.ImpersonateUserHeader || name == authenticationv1.ImpersonateGroupHeader ||
			name == authenticationv1.ImpersonateUIDHeader || strings.HasPrefix(name, authenticationv1.ImpersonateUserExtraHeaderPrefix) {
			r.Header.Del(name)
		}
	}
	return r, nil, "", nil
}

// withEveryoneGroup adds system:authenticated (system:unauthenticated for
// the anonymous user) unless the impersonated groups name either.
func withEveryoneGroup(name string, groups []string) []string {
	for _, g := range groups {
		if g == "system:unauthenticated" || (name != user.Anonymous.Username && g == "system:authenticated") {
			return groups
		}
	}
	if name == user.Anonymous.Username {
		return append(groups, "system:unauthenticated")
	}
	return append(groups, "system:authenticated")
}

// impersonationRequests lists what the headers ask to impersonate, in
// kube's order: the user (or ServiceAccount), groups, extras, UID.
func impersonationRequests(h http.Header) ([]corev1.ObjectReference, error) {
	var out []corev1.ObjectReference
	name := h.Get(authenticationv1.ImpersonateUserHeader)
	if name != "" {
		if ns, sa, ok := splitServiceAccount(name); ok {
			out = append(out, corev1.ObjectReference{Kind: "ServiceAccount", Namespace: ns, Name: sa})
		} else {
			out = append(out, corev1.ObjectReference{Kind: "User", Name: name})
		}
	}
	others := false
	for _, g := range h[authenticationv1.ImpersonateGroupHeader] {
		others = true
		out = append(out, corev1.ObjectReference{Kind: "Group", Name: g})
	}
	for header, values := range h {
		if !strings.HasPrefix(header, authenticationv1.ImpersonateUserExtraHeaderPrefix) {
			continue
		}
		others = true
		key := strings.ToLower(header[len(authenticationv1.ImpersonateUserExtraHeaderPrefix):])
		if k, err := url.PathUnescape(key); err == nil {
			key = k
		}
		for _, v := range values {
			out = append(out, corev1.ObjectReference{Kind: "UserExtra", APIVersion: "authentication.k8s.io/v1", Name: v, FieldPath: key})
		}
	}
	if uid := h.Get(authenticationv1.ImpersonateUIDHeader); uid != "" {
		others = true
		out = append(out, corev1.ObjectReference{Kind: "UID", APIVersion: "authentication.k8s.io/v1", Name: uid})
	}
	if others && name == "" {
		return nil, &impersonationError{requests: out}
	}
	return out, nil
}

// splitServiceAccount splits system:serviceaccount:<ns>:<name> when both
// parts are valid names; anything else is an ordinary user name.
func splitServiceAccount(name string) (ns, sa string, ok bool) {
	rest, found := strings.CutPrefix(name, serviceAccountPrefix)
	if !found {
		return "", "", false
	}
	ns, sa, found = strings.Cut(rest, ":")
	if !found || strings.Contains(sa, ":") || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(sa)) > 0 {
		return "", "", false
	}
	return ns, sa, true
}

// ImpersonationFailed answers a malformed impersonation as kube-apiserver
// does: a plain-text 500 naming the request.
func ImpersonationFailed(w http.ResponseWriter, r *http.Request, err error) {
	msg := fmt.Sprintf("Internal Server Error: %q: %v", r.RequestURI, err)
	http.Error(w, htmlEscaper.Replace(msg), http.StatusInternalServerError)
}

var htmlEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")
