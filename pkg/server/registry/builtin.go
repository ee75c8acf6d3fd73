package registry

import (
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// BuiltinOptions configure the built-in kinds.
type BuiltinOptions struct {
	// Services are the ranges Services are allocated from; zero is
	// DefaultServiceRanges.
	Services ServiceRanges
	// Authorizer answers the access reviews and decides whether a
	// caller may escalate a role or bind one, as kube-apiserver's RBAC
	// storage asks its authorizer. Nil authorizes every request, as
	// kube's AlwaysAllow mode does: reviews answer allowed and no write
	// of an RBAC object is checked. When set, Rules and Roles must be
	// too.
	Authorizer authorizer.Authorizer
	// Rules lists the rules a user holds, for SelfSubjectRulesReviews
	// and for the check that a role or binding grants nothing its
	// author lacks.
	Rules authorizer.RuleResolver
	// Roles reads the role a binding refers to, for that check.
	Roles RoleGetter
	// Tokens, when set, give ServiceAccounts their token subresource
	// (TokenRequest); without them it is not served.
	Tokens *ServiceAccountTokens
	// TokenReviewer answers TokenReviews; nil answers each as sent.
	TokenReviewer TokenReviewer
}

// Builtin returns the resources every server serves, with the default
// options.
func Builtin() []*Resource { return BuiltinWith(BuiltinOptions{}) }

// BuiltinWith returns the resources every server serves, described the
// way a CRD describes a custom resource. Each call returns fresh values
// so a caller may adjust them.
func BuiltinWith(o BuiltinOptions) []*Resource {
	if !o.Services.ClusterIPs.IsValid() {
		o.Services.ClusterIPs = DefaultServiceRanges().ClusterIPs
	}
	if o.Services.NodePorts == [2]int{} {
		o.Services.NodePorts = DefaultServiceRanges().NodePorts
	}
	if o.Authorizer != nil && (o.Rules == nil || o.Roles == nil) {
		panic("registry: BuiltinOptions.Authorizer needs Rules and Roles")
	}
	return slices.Concat(coreBuiltins(o), networkBuiltins(o), appsBuiltins(), batchBuiltins(), rbacBuiltins(o), accessReviewBuiltins(o), certificatesBuiltins(o))
}

// coreBuiltins are the core kinds and the authentication reviews.
func coreBuiltins(o BuiltinOptions) []*Resource {
	return []*Resource{
		{
			Version: "v1", Kind: "Namespace", ListKind: "NamespaceList",
			Plural: "namespaces", Singular: "namespace", ShortNames: []string{"ns"},
			StatusSubresource: true, Typed: true, NameIsLabel: true,
			SelectableFields: []string{"status.phase"},
			Columns:          []Column{{Name: "Status", Type: "string", Path: ".status.phase", Description: "The status of the namespace"}},
			Strategy:         namespaceStrategy{},
			// kube-apiserver offers no deletecollection of namespaces:
			// one request must not be able to empty the cluster.
			Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"},
		},
		{
			Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
			Plural: "configmaps", Singular: "configmap", ShortNames: []string{"cm"},
			Namespaced: true, Typed: true,
			Columns:  []Column{{Name: "Data", Type: "string", Description: corev1.ConfigMap{}.SwaggerDoc()["data"], Value: countKeys("data", "binaryData")}},
			Strategy: configMapStrategy{},
		},
		{
			Version: "v1", Kind: "Secret", ListKind: "SecretList",
			Plural: "secrets", Singular: "secret",
			Namespaced: true, Typed: true,
			SelectableFields: []string{"type"},
			Columns: []Column{
				{Name: "Type", Type: "string", Path: ".type", Description: corev1.Secret{}.SwaggerDoc()["type"]},
				{Name: "Data", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["data"], Value: countKeys("data")},
			},
			Strategy: secretStrategy{},
		},
		{
			Version: "v1", Kind: "ServiceAccount", ListKind: "ServiceAccountList",
			Plural: "serviceaccounts", Singular: "serviceaccount", ShortNames: []string{"sa"},
			Namespaced: true, Typed: true,
			Columns:  []Column{{Name: "Secrets", Type: "string", Description: corev1.ServiceAccount{}.SwaggerDoc()["secrets"], Value: countItems("secrets")}},
			Strategy: serviceAccountStrategyFor(o.Tokens),
		},
		{
			Version: "v1", Kind: "Event", ListKind: "EventList",
			Plural: "events", Singular: "event", ShortNames: []string{"ev"},
			Namespaced: true, Typed: true,
			SelectableFields: []string{
				"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
				"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
				"involvedObject.fieldPath", "reason", "reportingComponent", "source=source.component", "type",
			},
			Strategy: coreEventStrategy{}, CreatesOnUpdate: true,
			Columns: eventColumns(coreEventFields), OwnColumns: true,
		},
		{
			Group: "events.k8s.io", Version: "v1", Kind: "Event", ListKind: "EventList",
			Plural: "events", Singular: "event", ShortNames: []string{"ev"},
			Namespaced: true, Typed: true,
			SelectableFields: []string{
				"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
				"regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath",
				"reason", "reportingController", "type",
			},
			SharesStorage:  coreEvents,
			StorageVersion: "v1",
			Converter:      eventsV1Converter{},
			// kube-apiserver prints both versions' tables from the one
			// stored kind: the same columns.
			Columns: eventColumns(eventsV1Fields), OwnColumns: true,
			Strategy: eventsV1Strategy{}, CreatesOnUpdate: true,
		},
		{
			Version: "v1", Kind: "Pod", ListKind: "PodList",
			Plural: "pods", Singular: "pod", ShortNames: []string{"po"}, Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true,
			// kube sets generation 1 on create and bumps it on spec
			// changes.
			TracksGeneration: true,
			SelectableFields: []string{
				"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
				"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName",
			},
			Columns:  podColumns(),
			Strategy: podStrategy{},
		},
		{
			Version: "v1", Kind: "PersistentVolumeClaim", ListKind: "PersistentVolumeClaimList",
			Plural: "persistentvolumeclaims", Singular: "persistentvolumeclaim", ShortNames: []string{"pvc"},
			Namespaced: true, StatusSubresource: true, Typed: true,
			Columns:  claimColumns(),
			Strategy: persistentVolumeClaimStrategy{},
		},
		{
			Version: "v1", Kind: "PodTemplate", ListKind: "PodTemplateList",
			Plural: "podtemplates", Singular: "podtemplate",
			Namespaced: true, Typed: true, TracksGeneration: true,
			// kube prints pod templates without an Age.
			Columns: podTemplateColumns(), NoAge: true,
			Strategy: podTemplateStrategy{},
		},
		{
			Version: "v1", Kind: "Node", ListKind: "NodeList",
			Plural: "nodes", Singular: "node", ShortNames: []string{"no"},
			StatusSubresource: true, Typed: true,
			SelectableFields: []string{"spec.unschedulable"},
			Columns:          nodeColumns(),
			Strategy:         nodeStrategy{},
		},
		{
			Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", ListKind: "PodDisruptionBudgetList",
			Plural: "poddisruptionbudgets", Singular: "poddisruptionbudget", ShortNames: []string{"pdb"},
			Namespaced: true, StatusSubresource: true, Typed: true,
			// kube sets generation 1 on create and bumps it on spec
			// changes; the disruption controller reports observedGeneration.
			TracksGeneration: true,
			Columns:          pdbColumns(),
			Strategy:         pdbStrategy{},
		},
		{
			Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", ListKind: "LeaseList",
			Plural: "leases", Singular: "lease",
			Namespaced: true, Typed: true,
			Columns:  []Column{{Name: "Holder", Type: "string", Path: ".spec.holderIdentity", Description: coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]}},
			Strategy: leaseStrategy{}, CreatesOnUpdate: true,
		},
		{
			Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", ListKind: "CustomResourceDefinitionList",
			Plural: "customresourcedefinitions", Singular: "customresourcedefinition", ShortNames: []string{"crd", "crds"},
			Categories:        []string{"api-extensions"},
			StatusSubresource: true, Typed: true, TracksGeneration: true,
			Columns:  []Column{{Name: "Created At", Type: "date", Path: ".metadata.creationTimestamp", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]}},
			Strategy: crdStrategy{},
		},
		{
			// Not stored: the server answers with the caller's identity
			// (kubectl auth whoami).
			Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview", ListKind: "SelfSubjectReviewList",
			Plural: "selfsubjectreviews", Singular: "selfsubjectreview",
			Typed: true, Verbs: []string{"create"}, Strategy: selfSubjectReviewStrategy{},
		},
		tokenReviewResource(o),
	}
}

// countKeys counts the keys of the named map fields together, the DATA
// column of ConfigMaps and Secrets.
func countKeys(fields ...string) func(map[string]any) any {
	return func(obj map[string]any) any {
		n := int64(0)
		for _, f := range fields {
			if m, ok := obj[f].(map[string]any); ok {
				n += int64(len(m))
			}
		}
		return n
	}
}

func countItems(field string) func(map[string]any) any {
	return func(obj map[string]any) any {
		s, _ := obj[field].([]any)
		return int64(len(s))
	}
}

// objectReference is a table cell naming the object a reference field
// points to as kube's event printer does: kind/name, the kind lower
// case, or the kind alone when the reference has no name.
func objectReference(field string) func(map[string]any) any {
	return func(obj map[string]any) any {
		ref, _ := obj[field].(map[string]any)
		kind := strings.ToLower(str(ref["kind"]))
		if name := str(ref["name"]); name != "" {
			return kind + "/" + name
		}
		return kind
	}
}
