package protobuf

import (
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultAddToScheme returns the AddToScheme funcs of the Default codec:
// the stable (v1, v2) versions of the built-in groups of k8s.io/api, to
// which a caller may append its own for NewCodec. Registering them all
// costs about a millisecond and 2.5 MiB of binary more than core,
// coordination and events alone.
func DefaultAddToScheme() []func(*runtime.Scheme) error {
	return append([]func(*runtime.Scheme) error(nil), defaultAddToScheme...)
}

var defaultAddToScheme = []func(*runtime.Scheme) error{
	corev1.AddToScheme,
	coordinationv1.AddToScheme,
	eventsv1.AddToScheme,
	admissionregistrationv1.AddToScheme,
	appsv1.AddToScheme,
	authenticationv1.AddToScheme,
	authorizationv1.AddToScheme,
	autoscalingv1.AddToScheme,
	autoscalingv2.AddToScheme,
	batchv1.AddToScheme,
	certificatesv1.AddToScheme,
	discoveryv1.AddToScheme,
	flowcontrolv1.AddToScheme,
	networkingv1.AddToScheme,
	nodev1.AddToScheme,
	policyv1.AddToScheme,
	rbacv1.AddToScheme,
	resourcev1.AddToScheme,
	schedulingv1.AddToScheme,
	storagev1.AddToScheme,
	// Not in k8s.io/api, but served by every API server in protobuf too.
	apiextensionsv1.AddToScheme,
}

var defaultCodec = sync.OnceValue(func() *Codec {
	c, err := NewCodec(defaultAddToScheme...)
	if err != nil {
		// Registration of k8s.io/api's groups cannot fail short of a
		// programming error (two Go types under one kind).
		panic("protobuf: building the default codec: " + err.Error())
	}
	return c
})

// Default returns the codec for the built-in kinds of DefaultAddToScheme
// (core/v1, coordination.k8s.io/v1, events.k8s.io/v1 and the other stable
// groups), built on first use and shared.
func Default() *Codec { return defaultCodec() }
