// Package endpoints keeps each Service's endpoints: the EndpointSlices
// (discovery.k8s.io/v1) and the legacy core/v1 Endpoints that list the
// addresses and ports of the Pods its selector picks, as
// kube-controller-manager's endpointslice and endpoints controllers do.
//
//	Services, Pods (informers) -> this controller -> EndpointSlices, Endpoints
//
// A Pod is an endpoint once it has an IP and until it ends; it is ready
// while its Ready condition is true (or the Service publishes not-ready
// addresses), serving likewise, and terminating once it is being
// deleted. Each Service port resolves its targetPort per Pod, by number
// or by the name of a container port, so Pods that name ports
// differently land in different slices. Services without a selector
// are left alone: their endpoints are the user's.
package endpoints
