package client

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultAddToScheme lists the Go types a client knows without being
// told: the stable groups controllers most often read and write.
var defaultAddToScheme = []func(*runtime.Scheme) error{
	corev1.AddToScheme,
	appsv1.AddToScheme,
	batchv1.AddToScheme,
	coordinationv1.AddToScheme,
	eventsv1.AddToScheme,
	discoveryv1.AddToScheme,
	networkingv1.AddToScheme,
	policyv1.AddToScheme,
	rbacv1.AddToScheme,
	apiextensionsv1.AddToScheme,
}

// NewScheme returns a new scheme with core/v1, apps/v1, batch/v1,
// coordination.k8s.io/v1, events.k8s.io/v1, discovery.k8s.io/v1,
// networking.k8s.io/v1, policy/v1, rbac.authorization.k8s.io/v1 and
// apiextensions.k8s.io/v1, for callers that add their own types to it.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range defaultAddToScheme {
		if err := add(s); err != nil {
			// Registering k8s.io/api's own groups fails only on a
			// programming error (two Go types under one kind).
			panic("client: building the default scheme: " + err.Error())
		}
	}
	return s
}

// defaultScheme is shared by clients given no scheme; it is never
// written to after it is built.
var defaultScheme = sync.OnceValue(NewScheme)
