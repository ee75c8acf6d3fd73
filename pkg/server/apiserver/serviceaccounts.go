package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
)

// DefaultServiceAccountIssuer is the issuer of ServiceAccount tokens when
// none is configured: the one kubeadm configures, the in-cluster name of
// the API.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// ServiceAccountConfig configures ServiceAccount tokens, as
// kube-apiserver's --service-account-* and --api-audiences flags do.
type ServiceAccountConfig struct {
	// Key signs the tokens TokenRequest issues and verifies the ones
	// presented. Nil turns tokens off: ServiceAccounts serve no token
	// subresource, no service account token authenticates, and the
	// issuer's discovery documents are not served.
	Key *serviceaccount.Key
	// Issuer is the tokens' iss (--service-account-issuer); empty is
	// DefaultServiceAccountIssuer. The discovery documents are served
	// when it is an https URL.
	Issuer string
	// APIAudiences (--api-audiences) are the audiences a token must be
	// meant for to authenticate a request, and those a TokenRequest
	// naming none gets; empty is the issuer alone, as in kube.
	APIAudiences []string
	// MaxTokenExpiration (--service-account-max-token-expiration)
	// shortens longer TokenRequests, with a warning; 0 is no maximum,
	// else it must be between an hour and 2^32 seconds.
	MaxTokenExpiration time.Duration
}

// serviceAccounts is what the server does with ServiceAccount tokens.
type serviceAccounts struct {
	issuer    string
	audiences []string
	limits    serviceaccount.Limits
	key       *serviceaccount.Key // nil: no tokens
	keys      *serviceaccount.KeySet
	// jwks is the JWKS document; nil when the issuer cannot be
	// discovered (or there is no key).
	jwks []byte
}

// newServiceAccounts applies the defaults to cfg.
func newServiceAccounts(cfg ServiceAccountConfig) (*serviceAccounts, error) {
	sa := &serviceAccounts{issuer: cfg.Issuer, key: cfg.Key}
	if sa.issuer == "" {
		sa.issuer = DefaultServiceAccountIssuer
	}
	sa.audiences = slices.Clone(cfg.APIAudiences)
	if len(sa.audiences) == 0 {
		sa.audiences = []string{sa.issuer}
	}
	max := int64(cfg.MaxTokenExpiration / time.Second)
	if err := serviceaccount.ValidateMaxExpiration(max); err != nil {
		return nil, fmt.Errorf("apiserver: %w", err)
	}
	sa.limits = serviceaccount.DefaultLimits(sa.issuer)
	sa.limits.APIAudiences = sa.audiences
	sa.limits.MaxExpirationSeconds = max
	if sa.key == nil {
		return sa, nil
	}
	sa.keys = serviceaccount.NewKeySet(sa.key.Public())
	if serviceaccount.ValidateDiscoveryIssuer(sa.issuer) == nil {
		sa.jwks = serviceaccount.JWKS(sa.keys.Keys())
	}
	return sa, nil
}

// registryTokens configure the ServiceAccounts' token subresource; nil
// without a key.
func (sa *serviceAccounts) registryTokens() *registry.ServiceAccountTokens {
	if sa.key == nil {
		return nil
	}
	return &registry.ServiceAccountTokens{Key: sa.key, Issuer: sa.issuer, Limits: sa.limits}
}

// authenticator returns the authenticator of the tokens, which reads the
// objects they name from s's cache; nil without a key.
func (sa *serviceAccounts) authenticator(s *Server) *credentials.ServiceAccountTokens {
	if sa.key == nil {
		return nil
	}
	return credentials.NewServiceAccountTokens(sa.keys, []string{sa.issuer}, sa.audiences, cachedObjects{s}, s.now)
}

// addServiceAccountTokens makes the server check ServiceAccount tokens
// after the credentials Config.Authenticator accepts, when it has a key
// and that Authenticator says whose credentials a request carries.
func (s *Server) addServiceAccountTokens(sa *serviceAccounts) {
	s.serviceAccounts = sa
	s.baseAuthn = s.cfg.Authenticator
	s.tokens = sa.authenticator(s)
	if base, ok := s.cfg.Authenticator.(Identifier); ok && s.tokens != nil {
		s.cfg.Authenticator = tokenAuthn{base: base, tokens: s.tokens, log: s.log}
	}
}

// tokenAuthn authenticates requests with the configured Authenticator
// first (client certificates, then the admin and loopback tokens, which
// kube-apiserver also checks before service account tokens), then as
// service account tokens. The admin token thus costs no JWT parsing.
type tokenAuthn struct {
	base   Identifier
	tokens *credentials.ServiceAccountTokens
	log    *slog.Logger
}

func (a tokenAuthn) Authenticate(r *http.Request) bool {
	_, ok := a.Identify(r)
	return ok
}

func (a tokenAuthn) Identify(r *http.Request) (u authenticationv1.UserInfo, ok bool) {
	if u, ok := a.base.Identify(r); ok {
		return u, true
	}
	token, ok := credentials.BearerToken(r)
	if !ok {
		return u, false
	}
	u, _, ok, err := a.tokens.AuthenticateToken(token, nil)
	if err != nil {
		a.log.Debug("service account token refused", "err", err)
	}
	return u, ok
}

// tokenIdentifier is an Authenticator that knows bearer tokens of its own
// (the admin and loopback tokens).
type tokenIdentifier interface {
	IdentifyToken(token string) (authenticationv1.UserInfo, bool)
}

// invalidBearerToken is kube-apiserver's error for a token none of its
// authenticators accepts.
const invalidBearerToken = "invalid bearer token"

// tokenReviewer answers TokenReviews with the server's token
// authenticators, in kube-apiserver's order: its own tokens (loopback,
// then the static ones), which are meant for the API audiences only,
// then service account tokens.
type tokenReviewer struct {
	// s is read when a review comes: the reviewer is made before the
	// server.
	s *Server
}

func (tr tokenReviewer) ReviewToken(_ context.Context, token string, audiences []string) authenticationv1.TokenReviewStatus {
	s := tr.s
	want := audiences
	if len(want) == 0 {
		want = s.serviceAccounts.audiences
	}
	if id, ok := s.baseAuthn.(tokenIdentifier); ok {
		// Tokens that know no audience count for the API audiences
		// among those asked for, as kube wraps them.
		matched := intersect(s.serviceAccounts.audiences, want)
		if u, ok := id.IdentifyToken(token); ok && len(matched) > 0 {
			return authenticationv1.TokenReviewStatus{Authenticated: true, User: u, Audiences: matched}
		}
	}
	if s.tokens == nil {
		return authenticationv1.TokenReviewStatus{Error: invalidBearerToken}
	}
	var asked []string
	if len(audiences) > 0 {
		asked = audiences
	}
	u, matched, ok, err := s.tokens.AuthenticateToken(token, asked)
	switch {
	case ok:
		return authenticationv1.TokenReviewStatus{Authenticated: true, User: u, Audiences: matched}
	case err != nil:
		// kube's own-token authenticator refuses first, then the
		// service account authenticator says why: the union of their
		// errors.
		return authenticationv1.TokenReviewStatus{Error: "[" + invalidBearerToken + ", " + err.Error() + "]"}
	}
	return authenticationv1.TokenReviewStatus{Error: invalidBearerToken}
}

// intersect returns the members of want that are in have, in want's
// order.
func intersect(have, want []string) []string {
	var out []string
	for _, w := range want {
		if slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// cachedObjects looks up what a service account token names in the
// watch cache, then in storage when the cache does not hold it yet, as
// kube-apiserver reads its informers, then the API.
type cachedObjects struct{ s *Server }

var (
	serviceAccountsGVR = corev1.SchemeGroupVersion.WithResource("serviceaccounts")
	podsGVR            = corev1.SchemeGroupVersion.WithResource("pods")
	secretsGVR         = corev1.SchemeGroupVersion.WithResource("secrets")
	nodesGVR           = corev1.SchemeGroupVersion.WithResource("nodes")
)

// liveLookupTimeout bounds the storage read behind a cache miss.
const liveLookupTimeout = 5 * time.Second

func (c cachedObjects) ServiceAccount(ns, name string) (serviceaccount.Object, bool, error) {
	return c.get(serviceAccountsGVR, ns, name)
}

func (c cachedObjects) Pod(ns, name string) (serviceaccount.Object, bool, error) {
	return c.get(podsGVR, ns, name)
}

func (c cachedObjects) Secret(ns, name string) (serviceaccount.Object, bool, error) {
	return c.get(secretsGVR, ns, name)
}

func (c cachedObjects) Node(name string) (serviceaccount.Object, bool, error) {
	return c.get(nodesGVR, "", name)
}

// objectIdentity is what a token's check reads of an object.
type objectIdentity struct {
	Metadata struct {
		UID               string       `json:"uid"`
		DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
	} `json:"metadata"`
}

func (id objectIdentity) object() serviceaccount.Object {
	o := serviceaccount.Object{UID: id.Metadata.UID}
	if t := id.Metadata.DeletionTimestamp; t != nil {
		o.DeletionTimestamp = t.Time
	}
	return o
}

func (c cachedObjects) get(gvr schema.GroupVersionResource, ns, name string) (serviceaccount.Object, bool, error) {
	res, ok := c.s.reg.Get(gvr)
	if !ok {
		return serviceaccount.Object{}, false, fmt.Errorf("apiserver: %s are not served", gvr.Resource)
	}
	var id objectIdentity
	found, err := c.s.cachedObject(res, ns, name, &id)
	if err != nil || found {
		return id.object(), found, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveLookupTimeout)
	defer cancel()
	o, err := c.s.objects.Get(ctx, res, ns, name, generic.GetOptions{})
	var se *apierror.StatusError
	switch {
	case errors.As(err, &se) && se.Status.Reason == metav1.StatusReasonNotFound:
		return serviceaccount.Object{}, false, nil
	case err != nil:
		return serviceaccount.Object{}, false, err
	}
	if err := json.Unmarshal(o.Served(), &id); err != nil {
		return serviceaccount.Object{}, false, err
	}
	return id.object(), true, nil
}

// servesIssuerDiscovery reports whether path is one of the issuer's
// discovery documents the server serves.
func (s *Server) servesIssuerDiscovery(path string) bool {
	if s.serviceAccounts.jwks == nil {
		return false
	}
	path = strings.TrimSuffix(path, "/")
	return path == serviceaccount.OpenIDConfigPath || path == serviceaccount.JWKSPath
}

// serveIssuerDiscovery serves the OIDC discovery document and the JWKS
// of the service account issuer, with kube-apiserver's headers, so that
// relying parties outside the cluster can verify its tokens. The JWKS's
// URI is on the address the server advertises, as kube's default is.
func (s *Server) serveIssuerDiscovery(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeStatus(w, apierror.MethodNotAllowed())
		return
	}
	sa := s.serviceAccounts
	body, contentType := sa.jwks, serviceaccount.JWKSContentType
	if strings.TrimSuffix(r.URL.Path, "/") == serviceaccount.OpenIDConfigPath {
		uri := serviceaccount.DefaultJWKSURI(s.advertised().String())
		body, contentType = serviceaccount.DiscoveryDocument(sa.issuer, uri, sa.keys.Keys()), serviceaccount.OpenIDConfigContentType
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(serviceaccount.DiscoveryMaxAge))
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
