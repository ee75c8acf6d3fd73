package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
)

// TokenStrategy is implemented by kinds whose objects tokens are issued
// for (ServiceAccounts): a create on their token subresource answers a
// request for a token, storing nothing.
type TokenStrategy interface {
	// IssueToken answers request, made at now for the object name in
	// namespace, which it reads through objects like any object the
	// token is bound to. It returns the answer and the warnings to send
	// with it.
	IssueToken(ctx context.Context, now time.Time, namespace, name string, request map[string]any, objects ObjectGetter) (answer map[string]any, warnings []string, err error)
}

// ObjectGetter reads objects of any served resource, as the store
// serves them, for a strategy whose answer depends on other objects. A
// missing object is a *NotFoundError naming its resource, and an empty
// name a *BadRequestError, as kube-apiserver's store answers a get
// without one.
type ObjectGetter interface {
	Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (map[string]any, error)
}

// ServiceAccountTokens configure the token subresource of
// ServiceAccounts: the key tokens are signed with, their issuer and the
// server's limits on what may be asked for.
type ServiceAccountTokens struct {
	Key    *serviceaccount.Key
	Issuer string
	Limits serviceaccount.Limits
}

var (
	tokenRequestKind   = schema.GroupKind{Group: authenticationv1.GroupName, Kind: "TokenRequest"}
	serviceAccountsGVR = corev1.SchemeGroupVersion.WithResource("serviceaccounts")
	podsGVR            = corev1.SchemeGroupVersion.WithResource("pods")
	secretsGVR         = corev1.SchemeGroupVersion.WithResource("secrets")
	nodesGVR           = corev1.SchemeGroupVersion.WithResource("nodes")
)

// serviceAccountTokenStrategy is a ServiceAccount's strategy on a server
// that issues tokens: kube-apiserver's TokenREST.
type serviceAccountTokenStrategy struct {
	serviceAccountStrategy
	tokens ServiceAccountTokens
}

// serviceAccountStrategyFor is the ServiceAccounts' strategy: with a
// token subresource when tokens are configured.
func serviceAccountStrategyFor(tokens *ServiceAccountTokens) Strategy {
	if tokens == nil || tokens.Key == nil {
		return serviceAccountStrategy{}
	}
	return serviceAccountTokenStrategy{tokens: *tokens}
}

// IssueToken checks and answers a TokenRequest in kube-apiserver's order:
// the body's name, the service account, defaults and validation, the
// bound object, then the lifetime the server allows.
func (s serviceAccountTokenStrategy) IssueToken(ctx context.Context, now time.Time, namespace, name string, request map[string]any, objects ObjectGetter) (map[string]any, []string, error) {
	var tr authenticationv1.TokenRequest
	if errs := toTyped(request, &tr); len(errs) > 0 {
		return nil, nil, errs.ToAggregate()
	}
	if errs := serviceaccount.ValidateName(&tr, name); len(errs) > 0 {
		return nil, nil, &InvalidError{Kind: tokenRequestKind, Name: name, Errs: errs}
	}
	sa, err := objects.Get(ctx, serviceAccountsGVR, namespace, name)
	if err != nil {
		return nil, nil, err
	}
	s.tokens.Limits.Default(&tr, name, namespace)
	tr.CreationTimestamp = metav1.NewTime(now)
	tr.Status = authenticationv1.TokenRequestStatus{}
	if errs := serviceaccount.Validate(&tr); len(errs) > 0 {
		return nil, nil, &InvalidError{Kind: tokenRequestKind, Errs: errs}
	}
	spec := serviceaccount.TokenSpec{
		Issuer:         s.tokens.Issuer,
		Namespace:      namespace,
		ServiceAccount: serviceaccount.Ref{Name: name, UID: uidOf(sa)},
		Audiences:      tr.Spec.Audiences,
	}
	if ref := tr.Spec.BoundObjectRef; ref != nil {
		if err := bindToken(ctx, &spec, ref, objects); err != nil {
			return nil, nil, err
		}
	}
	life := s.tokens.Limits.Lifetime(tr.Spec, spec.Pod != nil)
	spec.ExpirationSeconds, spec.WarnAfterSeconds = life.TokenExpirationSeconds, life.WarnAfterSeconds
	claims, err := serviceaccount.NewClaims(spec, now)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to generate token: %w", err)
	}
	token, err := s.tokens.Key.Issue(claims)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to generate token: %w", err)
	}
	tr.Spec.ExpirationSeconds = &life.ExpirationSeconds
	tr.Status = authenticationv1.TokenRequestStatus{
		Token:               token,
		ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(life.ExpirationSeconds) * time.Second)),
	}
	answer, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&tr)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if life.Warning != "" {
		warnings = append(warnings, life.Warning)
	}
	return answer, warnings, nil
}

// bindToken reads the object ref binds the token to into spec. The
// object must exist (and have ref's UID, when given); a pod must run as
// the token's service account, and the node it was scheduled to is
// recorded, by name alone when that node is gone.
func bindToken(ctx context.Context, spec *serviceaccount.TokenSpec, ref *authenticationv1.BoundObjectReference, objects ObjectGetter) error {
	kind, err := serviceaccount.Binding(ref)
	if err != nil {
		return &BadRequestError{Message: err.Error()}
	}
	var obj map[string]any
	switch kind {
	case serviceaccount.BoundPod:
		if obj, err = objects.Get(ctx, podsGVR, spec.Namespace, ref.Name); err != nil {
			return err
		}
		podSpec := nestedMap(obj, false, "spec")
		if str(podSpec["serviceAccountName"]) != spec.ServiceAccount.Name {
			return &BadRequestError{Message: serviceaccount.PodServiceAccountMismatch(spec.ServiceAccount.Name)}
		}
		spec.Pod = &serviceaccount.Ref{Name: ref.Name, UID: uidOf(obj)}
		if nodeName := str(podSpec["nodeName"]); nodeName != "" {
			node, err := objects.Get(ctx, nodesGVR, "", nodeName)
			var missing *NotFoundError
			switch {
			case errors.As(err, &missing):
				spec.Node = &serviceaccount.Ref{Name: nodeName}
			case err != nil:
				return fmt.Errorf("reading node %s of pod %s: %w", nodeName, ref.Name, err)
			default:
				spec.Node = &serviceaccount.Ref{Name: nodeName, UID: uidOf(node)}
			}
		}
	case serviceaccount.BoundSecret:
		if obj, err = objects.Get(ctx, secretsGVR, spec.Namespace, ref.Name); err != nil {
			return err
		}
		spec.Secret = &serviceaccount.Ref{Name: ref.Name, UID: uidOf(obj)}
	case serviceaccount.BoundNode:
		if obj, err = objects.Get(ctx, nodesGVR, "", ref.Name); err != nil {
			return err
		}
		spec.Node = &serviceaccount.Ref{Name: ref.Name, UID: uidOf(obj)}
	}
	if ref.UID != "" && string(ref.UID) != uidOf(obj) {
		// kube names the object by its kind here, not its resource.
		return &ConflictError{Resource: schema.GroupResource{Resource: string(kind)}, Name: ref.Name, Message: serviceaccount.BoundUIDMismatch(string(ref.UID))}
	}
	return nil
}

func uidOf(obj map[string]any) string {
	return str(nestedMap(obj, false, "metadata")["uid"])
}
