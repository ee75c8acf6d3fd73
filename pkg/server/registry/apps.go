package registry

// appsBuiltins are the apps/v1 kinds: the workloads that keep Pods
// running from a template (Deployments through ReplicaSets,
// StatefulSets, DaemonSets) and the ControllerRevisions that record
// their templates' history. Serving them is this file's part; the
// controllers that act on them are in pkg/server/controllers.
func appsBuiltins() []*Resource {
	// Each workload's scale subresource reads and writes the desired
	// count at spec.replicas and reports the observed one from status;
	// the selector comes from the ScaleSelectorStrategy.
	scale := func() *Scale {
		return &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}
	}
	return []*Resource{
		{
			Group: "apps", Version: "v1", Kind: "Deployment", ListKind: "DeploymentList",
			Plural: "deployments", Singular: "deployment", ShortNames: []string{"deploy"}, Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true,
			// kube sets generation 1 on create and bumps it on spec
			// (and, for Deployments, annotation) changes; the
			// controllers report observedGeneration.
			TracksGeneration: true,
			Columns:          deploymentColumns(),
			Scale:            scale(),
			Strategy:         deploymentStrategy{},
		},
		{
			Group: "apps", Version: "v1", Kind: "ReplicaSet", ListKind: "ReplicaSetList",
			Plural: "replicasets", Singular: "replicaset", ShortNames: []string{"rs"}, Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true, TracksGeneration: true,
			// kube's ReplicaSet strategy lists status.replicas, but
			// apps/v1 registers no field label conversion for it, so
			// v1.33 refuses it as any field but the name and namespace.
			Columns:  replicaSetColumns(),
			Scale:    scale(),
			Strategy: replicaSetStrategy{},
		},
		{
			Group: "apps", Version: "v1", Kind: "StatefulSet", ListKind: "StatefulSetList",
			Plural: "statefulsets", Singular: "statefulset", ShortNames: []string{"sts"}, Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true, TracksGeneration: true,
			// Pods are named after their StatefulSet and take its name
			// as their hostname: a DNS label.
			NameIsLabel: true,
			Columns:     statefulSetColumns(),
			Scale:       scale(),
			Strategy:    statefulSetStrategy{},
		},
		{
			Group: "apps", Version: "v1", Kind: "DaemonSet", ListKind: "DaemonSetList",
			Plural: "daemonsets", Singular: "daemonset", ShortNames: []string{"ds"}, Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true, TracksGeneration: true,
			Columns:  daemonSetColumns(),
			Strategy: daemonSetStrategy{},
		},
		{
			Group: "apps", Version: "v1", Kind: "ControllerRevision", ListKind: "ControllerRevisionList",
			Plural: "controllerrevisions", Singular: "controllerrevision",
			Namespaced: true, Typed: true,
			Columns:  controllerRevisionColumns(),
			Strategy: controllerRevisionStrategy{},
		},
	}
}
