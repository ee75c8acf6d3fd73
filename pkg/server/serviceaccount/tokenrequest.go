package serviceaccount

import (
	"errors"
	"fmt"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TokenRequest's numbers, as kube-apiserver has them.
const (
	// DefaultExpirationSeconds is spec.expirationSeconds when not given.
	DefaultExpirationSeconds int64 = 60 * 60
	// MinExpirationSeconds and MaxExpirationSeconds bound what a
	// request may ask for (422 otherwise).
	MinExpirationSeconds int64 = 10 * 60
	MaxExpirationSeconds int64 = 1 << 32
	// WarnOnlyBoundTokenExpirationSeconds is the lifetime the kubelet
	// asks for projected tokens (an hour and 7 seconds). Such a request,
	// bound to a pod and for the server's own audiences, gets a token
	// valid for the extended lifetime that warns after the asked one.
	WarnOnlyBoundTokenExpirationSeconds int64 = 60*60 + 7
	// ExpirationExtensionSeconds is the extended lifetime: a year.
	ExpirationExtensionSeconds int64 = 24 * 365 * 60 * 60
)

// Limits are a server's settings for the tokens it issues,
// kube-apiserver's flags of the same meaning.
type Limits struct {
	// APIAudiences (--api-audiences, defaulting to the issuers) are the
	// audiences of a request that names none, and those the server's
	// own authenticator accepts.
	APIAudiences []string
	// MaxExpirationSeconds (--service-account-max-token-expiration)
	// shortens longer requests, with a warning; 0 is no maximum.
	MaxExpirationSeconds int64
	// ExtendExpiration (--service-account-extend-token-expiration, on by
	// default) turns on the extension described at
	// WarnOnlyBoundTokenExpirationSeconds.
	ExtendExpiration bool
	// MaxExtendedExpirationSeconds is the extended lifetime; 0 means
	// ExpirationExtensionSeconds.
	MaxExtendedExpirationSeconds int64
}

// DefaultLimits are kube-apiserver's defaults for a server whose
// issuer is issuer.
func DefaultLimits(issuer string) Limits {
	return Limits{APIAudiences: []string{issuer}, ExtendExpiration: true, MaxExtendedExpirationSeconds: ExpirationExtensionSeconds}
}

// ValidateMaxExpiration checks a --service-account-max-token-expiration
// value (0, unset, is valid).
func ValidateMaxExpiration(seconds int64) error {
	if seconds != 0 && (seconds < 60*60 || seconds > MaxExpirationSeconds) {
		return errors.New("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds")
	}
	return nil
}

// Default fills in what kube-apiserver fills in a TokenRequest for the
// service account name in namespace before validating it:
// spec.expirationSeconds (3600), spec.audiences (the API audiences),
// metadata.name and namespace.
func (l Limits) Default(tr *authenticationv1.TokenRequest, name, namespace string) {
	if tr.Spec.ExpirationSeconds == nil {
		s := DefaultExpirationSeconds
		tr.Spec.ExpirationSeconds = &s
	}
	if len(tr.Spec.Audiences) == 0 {
		tr.Spec.Audiences = slices.Clone(l.APIAudiences)
	}
	if tr.Name == "" {
		tr.Name = name
	}
	if tr.Namespace == "" {
		tr.Namespace = namespace
	}
}

// ValidateName checks, before anything else, that a TokenRequest posted
// for the service account name names no other. kube-apiserver reports
// it as invalid under the service account's name
// (TokenRequest.authentication.k8s.io "<name>" is invalid), and the
// other errors under "".
func ValidateName(tr *authenticationv1.TokenRequest, name string) field.ErrorList {
	if tr.Name != "" && tr.Name != name {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), tr.Name, "must match the service account name if specified")}
	}
	return nil
}

// Validate checks a defaulted TokenRequest's spec.
func Validate(tr *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	var seconds int64
	if tr.Spec.ExpirationSeconds != nil {
		seconds = *tr.Spec.ExpirationSeconds
	}
	path := field.NewPath("spec", "expirationSeconds")
	if seconds < MinExpirationSeconds {
		errs = append(errs, field.Invalid(path, seconds, "may not specify a duration less than 10 minutes"))
	}
	if seconds > MaxExpirationSeconds {
		errs = append(errs, field.Invalid(path, seconds, "may not specify a duration larger than 2^32 seconds"))
	}
	return errs
}

// The kinds of object a token may be bound to.
type BoundKind string

const (
	BoundPod    BoundKind = "Pod"
	BoundSecret BoundKind = "Secret"
	BoundNode   BoundKind = "Node"
)

// ErrBinding: spec.boundObjectRef names something a token cannot be
// bound to; kube-apiserver answers 400 (BadRequest) with the message.
var ErrBinding = errors.New("cannot bind token")

// Binding says what kind of object ref binds the token to: a core Pod,
// Secret or Node (apiVersion v1, or none). Anything else is ErrBinding,
// worded as kube words it.
func Binding(ref *authenticationv1.BoundObjectReference) (BoundKind, error) {
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	if gvk.Group == "" {
		switch k := BoundKind(gvk.Kind); k {
		case BoundPod, BoundSecret, BoundNode:
			return k, nil
		}
	}
	return "", refuse(ErrBinding, fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
}

// PodServiceAccountMismatch is kube-apiserver's 400 message when the
// pod a token for the service account name is bound to runs as another.
func PodServiceAccountMismatch(name string) string {
	return fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", name)
}

// BoundUIDMismatch is the cause of kube-apiserver's 409 (Conflict) when
// spec.boundObjectRef.uid is not the bound object's. kube names the
// object by its Kind in that Status: `Operation cannot be fulfilled on
// Pod "p": <this>`.
func BoundUIDMismatch(refUID string) string {
	return fmt.Sprintf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", refUID)
}

// Lifetime is how long a requested token lives.
type Lifetime struct {
	// ExpirationSeconds is spec.expirationSeconds as answered, after the
	// server's maximum; status.expirationTimestamp is this long after
	// the request.
	ExpirationSeconds int64
	// TokenExpirationSeconds is the token's own lifetime (its exp),
	// longer than ExpirationSeconds when extended.
	TokenExpirationSeconds int64
	// WarnAfterSeconds is the token's warnafter, non-zero only when
	// extended.
	WarnAfterSeconds int64
	// Warning, when set, is the warning kube-apiserver returns (299) for
	// a shortened request.
	Warning string
}

// Lifetime applies the server's maximum and extension to a defaulted,
// validated spec, for a token bound to a pod or not.
func (l Limits) Lifetime(spec authenticationv1.TokenRequestSpec, boundToPod bool) Lifetime {
	asked := DefaultExpirationSeconds
	if spec.ExpirationSeconds != nil {
		asked = *spec.ExpirationSeconds
	}
	lt := Lifetime{ExpirationSeconds: asked}
	if l.MaxExpirationSeconds > 0 && asked > l.MaxExpirationSeconds {
		lt.Warning = fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", asked, l.MaxExpirationSeconds)
		lt.ExpirationSeconds = l.MaxExpirationSeconds
	}
	lt.TokenExpirationSeconds = lt.ExpirationSeconds
	if l.ExtendExpiration && boundToPod && lt.ExpirationSeconds == WarnOnlyBoundTokenExpirationSeconds && l.apiAudiences(spec.Audiences) {
		lt.WarnAfterSeconds = lt.ExpirationSeconds
		lt.TokenExpirationSeconds = l.MaxExtendedExpirationSeconds
		if lt.TokenExpirationSeconds == 0 {
			lt.TokenExpirationSeconds = ExpirationExtensionSeconds
		}
	}
	return lt
}

// apiAudiences reports whether every audience is one of the server's.
func (l Limits) apiAudiences(audiences []string) bool {
	for _, a := range audiences {
		if !slices.Contains(l.APIAudiences, a) {
			return false
		}
	}
	return true
}
