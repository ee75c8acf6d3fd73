// Package discovery serves the discovery documents clients use to find
// the server's resources, rebuilt live from the registry as CRDs come and
// go.
//
// # Documents
//
// The unaggregated ("legacy") documents are one per level:
//
//	/api                  APIVersions: the core group's versions
//	/apis                 APIGroupList: every other group
//	/apis/<group>         APIGroup
//	/api/v1               APIResourceList of the core group
//	/apis/<group>/<ver>   APIResourceList
//
// Versions are listed by Kubernetes version priority (v1, v1beta1,
// v1alpha1); the first is the preferred version. A resource is followed
// by an entry for each of its subresources ("<plural>/status",
// "<plural>/scale", ...), by name for built-in kinds as kube-apiserver
// sorts them, status before scale for custom resources.
//
// /api and /apis also serve aggregated discovery: the whole tree in one
// apidiscovery.k8s.io APIGroupDiscoveryList (the core group from /api,
// every other group from /apis), chosen by content negotiation. client-go
// asks for it with
//
//	Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json
//
// and recognises the answer by its Content-Type, which names the same
// group, version and kind. v2beta1 (same shape) is served the same way.
// Aggregated answers carry an ETag and honour If-None-Match with 304 Not
// Modified.
//
// # Negotiation
//
// Accept clauses are tried by q-value, then most specific first, then in
// the order given; the first one this package can serve wins. Plain JSON
// (application/json, application/*, */*, or no Accept header) gets the
// unaggregated document. A JSON clause naming a conversion (g, v, as) is
// only servable when it names the aggregated list on /api or /apis.
// Protobuf is not offered, so protobuf clauses are skipped in favour of
// the next one; when no clause is servable the answer is 406 Not
// Acceptable with a Status body.
//
// # Caching
//
// Every document is encoded once per registry generation and kept until
// the registry reports a change; the next request after a change
// rebuilds them all. Requests in between only copy cached bytes.
package discovery
