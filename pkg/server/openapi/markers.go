package openapi

// Some of what kube's OpenAPI generator publishes comes from comment
// markers in the Go sources (+listType, +listMapKey, +structType,
// +optional) or from type doc comments, which reflection cannot see. These
// tables restore them for the types the built-in kinds reach; list and map
// semantics matter to server-side apply.

const (
	meta   = "io.k8s.apimachinery.pkg.apis.meta.v1."
	core   = "io.k8s.api.core.v1."
	apps   = "io.k8s.api.apps.v1."
	apiext = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
)

// typeDocs describes types that have no SwaggerDoc method.
var typeDocs = map[string]string{
	meta + "Time":      "Time is a timestamp, serialized as an RFC 3339 string with second precision.",
	meta + "MicroTime": "MicroTime is a timestamp, serialized as an RFC 3339 string with microsecond precision.",
	meta + "Duration":  "Duration is a length of time, serialized as a Go duration string such as \"1h30m\".",
	meta + "FieldsV1":  "FieldsV1 is a set of field paths, encoded as a JSON trie of field, key, value and index entries.",
	meta + "WatchEvent": "WatchEvent is one change to a watched collection: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR, " +
		"with the object (or, for ERROR, a Status).",
	"io.k8s.apimachinery.pkg.runtime.RawExtension":    "RawExtension holds an embedded object of any kind in its serialized form.",
	"io.k8s.apimachinery.pkg.api.resource.Quantity":   "Quantity is a fixed-point number with an optional unit suffix, such as \"100m\", \"2\" or \"1Gi\".",
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": "IntOrString is a value that is either an integer or a string.",
	apiext + "JSON":                         "JSON is any JSON value.",
	apiext + "JSONSchemaPropsOrArray":       "JSONSchemaPropsOrArray is a schema or an array of schemas.",
	apiext + "JSONSchemaPropsOrBool":        "JSONSchemaPropsOrBool is a schema or a boolean.",
	apiext + "JSONSchemaPropsOrStringArray": "JSONSchemaPropsOrStringArray is a schema or an array of strings.",
}

// typeMarkers are extensions of whole definitions (+structType=atomic).
var typeMarkers = map[string]map[string]any{
	meta + "OwnerReference":       atomicStruct,
	meta + "LabelSelector":        atomicStruct,
	core + "ObjectReference":      atomicStruct,
	core + "LocalObjectReference": atomicStruct,
	// What Pods, PodTemplates and Nodes reach, as kube-apiserver v1.33
	// publishes it.
	core + "ConfigMapKeySelector":      atomicStruct,
	core + "NodeSelector":              atomicStruct,
	core + "NodeSelectorTerm":          atomicStruct,
	core + "ObjectFieldSelector":       atomicStruct,
	core + "ResourceFieldSelector":     atomicStruct,
	core + "SecretKeySelector":         atomicStruct,
	core + "TypedLocalObjectReference": atomicStruct,
	// A binding's role and subjects are replaced whole by server-side
	// apply, as kube-apiserver v1.33 publishes them.
	"io.k8s.api.rbac.v1.RoleRef": atomicStruct,
	"io.k8s.api.rbac.v1.Subject": atomicStruct,
}

var atomicStruct = map[string]any{"x-kubernetes-map-type": "atomic"}

// fieldMarkers are extensions of properties, keyed by definition name and
// JSON field name.
var fieldMarkers = map[string]map[string]any{
	meta + "ObjectMeta.ownerReferences": listMap("uid"),
	meta + "ObjectMeta.finalizers":      listSet,
	meta + "ObjectMeta.managedFields":   listAtomic,
	meta + "DeleteOptions.dryRun":       listAtomic,
	meta + "StatusDetails.causes":       listAtomic,
	meta + "APIResource.shortNames":     listAtomic,
	meta + "APIResource.categories":     listAtomic,
	meta + "APIResourceList.resources":  listAtomic,
	// A selector is replaced whole by server-side apply, its parts
	// never merged: what it selects is one decision.
	meta + "LabelSelector.matchExpressions":  listAtomic,
	meta + "LabelSelectorRequirement.values": listAtomic,

	core + "ServiceAccount.secrets":          listMap("name"),
	core + "ServiceAccount.imagePullSecrets": listAtomic,
	core + "NamespaceSpec.finalizers":        listAtomic,
	core + "NamespaceStatus.conditions":      listMap("type"),

	// What Pods, PodTemplates and Nodes reach, as kube-apiserver v1.33
	// publishes it: containers, volumes and env merge by name, ports by
	// containerPort and protocol, conditions and addresses by type.
	core + "Capabilities.add":                                                listAtomic,
	core + "Capabilities.drop":                                               listAtomic,
	core + "CephFSVolumeSource.monitors":                                     listAtomic,
	core + "ConfigMapProjection.items":                                       listAtomic,
	core + "ConfigMapVolumeSource.items":                                     listAtomic,
	core + "Container.args":                                                  listAtomic,
	core + "Container.command":                                               listAtomic,
	core + "Container.env":                                                   listMap("name"),
	core + "Container.envFrom":                                               listAtomic,
	core + "Container.ports":                                                 listMap("containerPort", "protocol"),
	core + "Container.resizePolicy":                                          listAtomic,
	core + "Container.volumeDevices":                                         listMap("devicePath"),
	core + "Container.volumeMounts":                                          listMap("mountPath"),
	core + "ContainerImage.names":                                            listAtomic,
	core + "ContainerStatus.allocatedResourcesStatus":                        listMap("name"),
	core + "ContainerStatus.volumeMounts":                                    listMap("mountPath"),
	core + "DownwardAPIProjection.items":                                     listAtomic,
	core + "DownwardAPIVolumeSource.items":                                   listAtomic,
	core + "EphemeralContainer.args":                                         listAtomic,
	core + "EphemeralContainer.command":                                      listAtomic,
	core + "EphemeralContainer.env":                                          listMap("name"),
	core + "EphemeralContainer.envFrom":                                      listAtomic,
	core + "EphemeralContainer.ports":                                        listMap("containerPort", "protocol"),
	core + "EphemeralContainer.resizePolicy":                                 listAtomic,
	core + "EphemeralContainer.volumeDevices":                                listMap("devicePath"),
	core + "EphemeralContainer.volumeMounts":                                 listMap("mountPath"),
	core + "ExecAction.command":                                              listAtomic,
	core + "FCVolumeSource.targetWWNs":                                       listAtomic,
	core + "FCVolumeSource.wwids":                                            listAtomic,
	core + "HTTPGetAction.httpHeaders":                                       listAtomic,
	core + "HostAlias.hostnames":                                             listAtomic,
	core + "ISCSIVolumeSource.portals":                                       listAtomic,
	core + "LinuxContainerUser.supplementalGroups":                           listAtomic,
	core + "NodeAffinity.preferredDuringSchedulingIgnoredDuringExecution":    listAtomic,
	core + "NodeSelector.nodeSelectorTerms":                                  listAtomic,
	core + "NodeSelectorRequirement.values":                                  listAtomic,
	core + "NodeSelectorTerm.matchExpressions":                               listAtomic,
	core + "NodeSelectorTerm.matchFields":                                    listAtomic,
	core + "NodeSpec.podCIDRs":                                               listSet,
	core + "NodeSpec.taints":                                                 listAtomic,
	core + "NodeStatus.addresses":                                            listMap("type"),
	"io.k8s.api.policy.v1.PodDisruptionBudgetStatus.conditions":              listMap("type"),
	core + "NodeStatus.conditions":                                           listMap("type"),
	core + "NodeStatus.images":                                               listAtomic,
	core + "NodeStatus.runtimeHandlers":                                      listAtomic,
	core + "NodeStatus.volumesAttached":                                      listAtomic,
	core + "NodeStatus.volumesInUse":                                         listAtomic,
	core + "PersistentVolumeClaimSpec.accessModes":                           listAtomic,
	core + "PersistentVolumeClaimStatus.accessModes":                         listAtomic,
	core + "PersistentVolumeClaimStatus.allocatedResourceStatuses":           {"x-kubernetes-map-type": "granular"},
	core + "PersistentVolumeClaimStatus.conditions":                          listMap("type"),
	core + "PodAffinity.preferredDuringSchedulingIgnoredDuringExecution":     listAtomic,
	core + "PodAffinity.requiredDuringSchedulingIgnoredDuringExecution":      listAtomic,
	core + "PodAffinityTerm.matchLabelKeys":                                  listAtomic,
	core + "PodAffinityTerm.mismatchLabelKeys":                               listAtomic,
	core + "PodAffinityTerm.namespaces":                                      listAtomic,
	core + "PodAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution": listAtomic,
	core + "PodAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution":  listAtomic,
	core + "PodDNSConfig.nameservers":                                        listAtomic,
	core + "PodDNSConfig.options":                                            listAtomic,
	core + "PodDNSConfig.searches":                                           listAtomic,
	core + "PodSecurityContext.supplementalGroups":                           listAtomic,
	core + "PodSecurityContext.sysctls":                                      listAtomic,
	core + "PodSpec.containers":                                              listMap("name"),
	core + "PodSpec.ephemeralContainers":                                     listMap("name"),
	core + "PodSpec.hostAliases":                                             listMap("ip"),
	core + "PodSpec.imagePullSecrets":                                        listMap("name"),
	core + "PodSpec.initContainers":                                          listMap("name"),
	core + "PodSpec.nodeSelector":                                            atomicStruct,
	core + "PodSpec.readinessGates":                                          listAtomic,
	core + "PodSpec.resourceClaims":                                          listMap("name"),
	core + "PodSpec.schedulingGates":                                         listMap("name"),
	core + "PodSpec.tolerations":                                             listAtomic,
	core + "PodSpec.topologySpreadConstraints":                               listMap("topologyKey", "whenUnsatisfiable"),
	core + "PodSpec.volumes":                                                 listMap("name"),
	core + "PodStatus.conditions":                                            listMap("type"),
	core + "PodStatus.containerStatuses":                                     listAtomic,
	core + "PodStatus.ephemeralContainerStatuses":                            listAtomic,
	core + "PodStatus.hostIPs":                                               listAtomic,
	core + "PodStatus.initContainerStatuses":                                 listAtomic,
	core + "PodStatus.podIPs":                                                listMap("ip"),
	core + "PodStatus.resourceClaimStatuses":                                 listMap("name"),
	core + "ProjectedVolumeSource.sources":                                   listAtomic,
	core + "RBDVolumeSource.monitors":                                        listAtomic,
	core + "ResourceRequirements.claims":                                     listMap("name"),
	core + "ResourceStatus.resources":                                        listMap("resourceID"),
	core + "SecretProjection.items":                                          listAtomic,
	core + "SecretVolumeSource.items":                                        listAtomic,
	core + "TopologySpreadConstraint.matchLabelKeys":                         listAtomic,

	// What the apps/v1 workloads reach besides the pod template:
	// conditions merge by type, a StatefulSet's claim templates are
	// replaced whole.
	apps + "DaemonSetStatus.conditions":           listMap("type"),
	apps + "DeploymentStatus.conditions":          listMap("type"),
	apps + "ReplicaSetStatus.conditions":          listMap("type"),
	apps + "StatefulSetStatus.conditions":         listMap("type"),
	apps + "StatefulSetSpec.volumeClaimTemplates": listAtomic,

	apiext + "CustomResourceDefinitionSpec.versions":                    listAtomic,
	apiext + "CustomResourceDefinitionStatus.conditions":                listMap("type"),
	apiext + "CustomResourceDefinitionStatus.storedVersions":            listAtomic,
	apiext + "CustomResourceDefinitionNames.shortNames":                 listAtomic,
	apiext + "CustomResourceDefinitionNames.categories":                 listAtomic,
	apiext + "CustomResourceDefinitionVersion.additionalPrinterColumns": listAtomic,
	apiext + "CustomResourceDefinitionVersion.selectableFields":         listAtomic,
	apiext + "WebhookConversion.conversionReviewVersions":               listAtomic,
	apiext + "JSONSchemaProps.enum":                                     listAtomic,
	apiext + "JSONSchemaProps.required":                                 listAtomic,
	apiext + "JSONSchemaProps.allOf":                                    listAtomic,
	apiext + "JSONSchemaProps.oneOf":                                    listAtomic,
	apiext + "JSONSchemaProps.anyOf":                                    listAtomic,
	apiext + "JSONSchemaProps.x-kubernetes-list-map-keys":               listAtomic,
	apiext + "JSONSchemaProps.x-kubernetes-validations":                 listMap("rule"),

	// batch/v1, as kube-apiserver v1.33 publishes it.
	"io.k8s.api.batch.v1.CronJobStatus.active":                          listAtomic,
	"io.k8s.api.batch.v1.JobStatus.conditions":                          listAtomic,
	"io.k8s.api.batch.v1.PodFailurePolicy.rules":                        listAtomic,
	"io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement.values": listSet,
	"io.k8s.api.batch.v1.PodFailurePolicyRule.onPodConditions":          listAtomic,
	"io.k8s.api.batch.v1.SuccessPolicy.rules":                           listAtomic,
	"io.k8s.api.batch.v1.UncountedTerminatedPods.failed":                listSet,
	"io.k8s.api.batch.v1.UncountedTerminatedPods.succeeded":             listSet,

	// certificates.k8s.io/v1, as kube-apiserver v1.33 publishes it.
	"io.k8s.api.certificates.v1.CertificateSigningRequestSpec.groups":        listAtomic,
	"io.k8s.api.certificates.v1.CertificateSigningRequestSpec.request":       listAtomic,
	"io.k8s.api.certificates.v1.CertificateSigningRequestSpec.usages":        listAtomic,
	"io.k8s.api.certificates.v1.CertificateSigningRequestStatus.certificate": listAtomic,
	"io.k8s.api.certificates.v1.CertificateSigningRequestStatus.conditions":  listMap("type"),

	// rbac.authorization.k8s.io/v1, as kube-apiserver v1.33 publishes it.
	"io.k8s.api.rbac.v1.AggregationRule.clusterRoleSelectors": listAtomic,
	"io.k8s.api.rbac.v1.ClusterRole.rules":                    listAtomic,
	"io.k8s.api.rbac.v1.ClusterRoleBinding.subjects":          listAtomic,
	"io.k8s.api.rbac.v1.PolicyRule.apiGroups":                 listAtomic,
	"io.k8s.api.rbac.v1.PolicyRule.nonResourceURLs":           listAtomic,
	"io.k8s.api.rbac.v1.PolicyRule.resourceNames":             listAtomic,
	"io.k8s.api.rbac.v1.PolicyRule.resources":                 listAtomic,
	"io.k8s.api.rbac.v1.PolicyRule.verbs":                     listAtomic,
	"io.k8s.api.rbac.v1.Role.rules":                           listAtomic,
	"io.k8s.api.rbac.v1.RoleBinding.subjects":                 listAtomic,
}

var (
	listAtomic = map[string]any{"x-kubernetes-list-type": "atomic"}
	listSet    = map[string]any{"x-kubernetes-list-type": "set"}
)

func listMap(keys ...string) map[string]any {
	k := make([]any, len(keys))
	for i := range keys {
		k[i] = keys[i]
	}
	return map[string]any{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": k}
}

// optionalFields have no omitempty but are +optional, so not required.
var optionalFields = map[string]bool{
	core + "Event.reportingComponent":                        true,
	core + "Event.reportingInstance":                         true,
	"io.k8s.api.events.v1.Event.metadata":                    true,
	apiext + "CustomResourceDefinitionStatus.conditions":     true,
	apiext + "CustomResourceDefinitionStatus.acceptedNames":  true,
	apiext + "CustomResourceDefinitionStatus.storedVersions": true,
	"io.k8s.api.rbac.v1.Role.rules":                          true,
	"io.k8s.api.rbac.v1.ClusterRole.rules":                   true,
}
