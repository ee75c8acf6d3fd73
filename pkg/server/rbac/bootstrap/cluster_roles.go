package bootstrap

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels by which admin, edit and view gather the rules of other roles.
const (
	aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

func clusterRole(name string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

// aggregated is a role whose rules the aggregation controller fills from
// the roles labelled selector=true; its own rules stay empty here.
func aggregated(name, selector string) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{selector: "true"}},
		}},
	}
}

// labelled adds label=true, which makes the role part of an aggregate.
func labelled(r rbacv1.ClusterRole, label string) rbacv1.ClusterRole {
	if r.Labels == nil {
		r.Labels = map[string]string{}
	}
	r.Labels[label] = "true"
	return r
}

// clusterRoles are the roles other than the controllers' ones, in the
// order kube writes them.
func clusterRoles() []rbacv1.ClusterRole {
	return []rbacv1.ClusterRole{
		clusterRole("cluster-admin", res("*", "*", "*"), urls("*", "*")),
		clusterRole("system:discovery",
			urls("get", "/livez /readyz /healthz /version /version/ /openapi /openapi/* /api /api/* /apis /apis/*")),
		clusterRole("system:monitoring",
			urls("get", "/metrics /metrics/slis /livez /readyz /healthz /livez/* /readyz/* /healthz/*")),
		clusterRole("system:basic-user",
			res("create", authz, "selfsubjectaccessreviews selfsubjectrulesreviews"),
			res("create", authn, "selfsubjectreviews")),
		clusterRole("system:public-info-viewer", urls("get", "/livez /readyz /healthz /version /version/")),
		aggregated("admin", aggregateToAdmin),
		labelled(aggregated("edit", aggregateToEdit), aggregateToAdmin),
		labelled(aggregated("view", aggregateToView), aggregateToEdit),
		labelled(clusterRole("system:aggregate-to-admin",
			res("create", authz, "localsubjectaccessreviews"),
			res(readWrite, rbacGroup, "roles rolebindings")), aggregateToAdmin),
		labelled(clusterRole("system:aggregate-to-edit", editRules()...), aggregateToEdit),
		labelled(clusterRole("system:aggregate-to-view", viewRules()...), aggregateToView),
		clusterRole("system:heapster",
			res(read, core, "events pods nodes namespaces"),
			res(read, extensions, "deployments")),
		clusterRole("system:node", nodeRules()...),
		clusterRole("system:node-problem-detector",
			res("get", core, "nodes"),
			res("patch", core, "nodes/status"),
			events()),
		clusterRole("system:node-bootstrapper",
			res("create get list watch", certificates, "certificatesigningrequests")),
		clusterRole("system:auth-delegator",
			res("create", authn, "tokenreviews"),
			res("create", authz, "subjectaccessreviews")),
		clusterRole("system:kube-aggregator", res(read, core, "services endpoints")),
		clusterRole("system:kube-controller-manager",
			events(),
			res("create", coordination, "leases"),
			named("get update", coordination, "leases", "kube-controller-manager"),
			res("create", core, "secrets serviceaccounts"),
			res("delete", core, "secrets"),
			res("get", core, "namespaces secrets serviceaccounts configmaps"),
			res("update", core, "secrets serviceaccounts"),
			res("create", authn, "tokenreviews"),
			res("create", authz, "subjectaccessreviews"),
			res("list watch", "*", "*"),
			res("create", core, "serviceaccounts/token")),
		clusterRole("system:kube-dns", res("list watch", core, "endpoints services")),
		clusterRole("system:persistent-volume-provisioner",
			res("get list watch create delete", core, "persistentvolumes"),
			res("get list watch update", core, "persistentvolumeclaims"),
			res(read, storage, "storageclasses"),
			res("watch", core, "events"),
			events()),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient",
			res("create", certificates, "certificatesigningrequests/nodeclient")),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
			res("create", certificates, "certificatesigningrequests/selfnodeclient")),
		clusterRole("system:volume-scheduler",
			res(readUpdate, core, "persistentvolumes"),
			res(read, storage, "storageclasses"),
			res(readUpdate, core, "persistentvolumeclaims")),
		clusterRole("system:certificates.k8s.io:legacy-unknown-approver",
			named("approve", certificates, "signers", "kubernetes.io/legacy-unknown")),
		clusterRole("system:certificates.k8s.io:kubelet-serving-approver",
			named("approve", certificates, "signers", "kubernetes.io/kubelet-serving")),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-approver",
			named("approve", certificates, "signers", "kubernetes.io/kube-apiserver-client")),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
			named("approve", certificates, "signers", "kubernetes.io/kube-apiserver-client-kubelet")),
		// The slash-ended paths serve clients generated from OpenAPI
		// documents published before the trailing slash was fixed.
		clusterRole("system:service-account-issuer-discovery",
			urls("get", "/.well-known/openid-configuration /.well-known/openid-configuration/ /openid/v1/jwks /openid/v1/jwks/")),
		clusterRole("system:kubelet-api-admin",
			res("get list watch", core, "nodes"),
			res("proxy", core, "nodes"),
			res("*", core, "nodes/proxy nodes/metrics nodes/stats nodes/log"),
			// KubeletFineGrainedAuthz, on by default in v1.33.
			res("*", core, "nodes/pods nodes/healthz nodes/configz")),
		clusterRole("system:node-proxier",
			res("list watch", core, "services endpoints"),
			res("get list watch", core, "nodes"),
			events(),
			// MultiCIDRServiceAllocator, on by default in v1.33.
			res("list watch", networking, "servicecidrs"),
			res("list watch", discovery, "endpointslices")),
		clusterRole("system:kube-scheduler",
			events(),
			res("create", coordination, "leases"),
			named("get update list watch", coordination, "leases", "kube-scheduler"),
			res(readWrite, coordination, "leasecandidates"),
			res(read, core, "nodes"),
			res("get list watch delete", core, "pods"),
			res("create", core, "pods/binding bindings"),
			res("patch update", core, "pods/status"),
			res(read, core, "services replicationcontrollers"),
			res(read, apps+" "+extensions, "replicasets"),
			res(read, apps, "statefulsets"),
			res(read, policyGroup, "poddisruptionbudgets"),
			res(read, core, "persistentvolumeclaims persistentvolumes"),
			res("create", authn, "tokenreviews"),
			res("create", authz, "subjectaccessreviews"),
			res(read, storage, "csinodes"),
			res("get list watch", storage, "volumeattachments"),
			res(read, core, "namespaces"),
			res(read, storage, "csidrivers"),
			res(read, storage, "csistoragecapacities")),
	}
}

// viewRules is read access to the non-escalating objects of a namespace.
func viewRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		res(read, core, "pods replicationcontrollers replicationcontrollers/scale serviceaccounts services services/status "+
			"endpoints persistentvolumeclaims persistentvolumeclaims/status configmaps"),
		res(read, core, "limitranges resourcequotas bindings events pods/status resourcequotas/status namespaces/status "+
			"replicationcontrollers/status pods/log"),
		// Namespace-scoped read of namespaces tells a user which
		// namespaces they may use.
		res(read, core, "namespaces"),
		res(read, discovery, "endpointslices"),
		res(read, apps, "controllerrevisions statefulsets statefulsets/status statefulsets/scale daemonsets daemonsets/status "+
			"deployments deployments/status deployments/scale replicasets replicasets/status replicasets/scale"),
		res(read, autoscaling, "horizontalpodautoscalers horizontalpodautoscalers/status"),
		res(read, batch, "jobs cronjobs cronjobs/status jobs/status"),
		res(read, extensions, "daemonsets daemonsets/status deployments deployments/scale deployments/status ingresses "+
			"ingresses/status replicasets replicasets/scale replicasets/status replicationcontrollers/scale networkpolicies"),
		res(read, policyGroup, "poddisruptionbudgets poddisruptionbudgets/status"),
		res(read, networking, "networkpolicies ingresses ingresses/status"),
	}
}

// editRules is what edit adds to view: writes to user workloads and read
// of the escalating objects, but no status or quota.
func editRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		res(read, core, "pods/attach pods/proxy pods/exec pods/portforward secrets services/proxy"),
		res("impersonate", core, "serviceaccounts"),
		res(write, core, "pods pods/attach pods/proxy pods/exec pods/portforward"),
		res("create", core, "pods/eviction"),
		res(write, core, "replicationcontrollers replicationcontrollers/scale serviceaccounts services services/proxy "+
			"persistentvolumeclaims configmaps secrets events"),
		res("create", core, "serviceaccounts/token"),
		res(write, apps, "statefulsets statefulsets/scale daemonsets deployments deployments/scale deployments/rollback "+
			"replicasets replicasets/scale"),
		res(write, autoscaling, "horizontalpodautoscalers"),
		res(write, batch, "jobs cronjobs"),
		res(write, extensions, "daemonsets deployments deployments/scale deployments/rollback ingresses replicasets "+
			"replicasets/scale replicationcontrollers/scale networkpolicies"),
		res(write, policyGroup, "poddisruptionbudgets"),
		res(write, networking, "networkpolicies ingresses"),
		res(readWrite, coordination, "leases"),
	}
}

// nodeRules is what a kubelet needs; the Node authorizer and the
// NodeRestriction admission plugin narrow most of it to the node's own
// objects.
func nodeRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		res("create", authn, "tokenreviews"),
		res("create", authz, "subjectaccessreviews localsubjectaccessreviews"),
		res(read, core, "services"),
		res("create get list watch", core, "nodes"),
		res("update patch", core, "nodes/status"),
		res("update patch", core, "nodes"),
		res("create update patch", core, "events"),
		res(read, core, "pods"),
		res("create delete", core, "pods"),
		res("update patch", core, "pods/status"),
		res("create", core, "pods/eviction"),
		res("get list watch", core, "secrets configmaps"),
		res("get", core, "persistentvolumeclaims persistentvolumes"),
		res("get", core, "endpoints"),
		res("create get list watch", certificates, "certificatesigningrequests"),
		res("get create update patch delete", coordination, "leases"),
		res("get", storage, "volumeattachments"),
		res("create", core, "serviceaccounts/token"),
		res("get update patch", core, "persistentvolumeclaims/status"),
		res("get watch list", storage, "csidrivers"),
		res("get create update patch delete", storage, "csinodes"),
		res("get list watch", node, "runtimeclasses"),
	}
}
