// Package client is Setpoint's REST client: controllers and caches talk
// to any Kubernetes API server through it, over HTTP only. It never
// imports the server, so what works against Setpoint's server works
// against a real cluster, and the other way round.
//
// In the data path it sits between the runtime (cache reflectors,
// reconcilers, leader election) and an API server:
//
//	controllers, caches -> client -> HTTPS -> any Kubernetes API server
//
// It maps kinds to resources through the server's discovery documents
// (refreshed when a kind is unknown, so a CRD created after start is
// found), sends built-in kinds as protobuf and everything else as JSON,
// decodes answers and watch streams into the caller's objects (typed Go
// structs, unstructured objects, or metadata only), and turns every
// non-2xx answer into a *StatusError carrying the server's metav1.Status.
//
// client-go is used for two things only: loading kubeconfig
// (tools/clientcmd) and building the authenticated transport
// (rest.HTTPClientFor: client certificates, bearer tokens). In-cluster
// configuration (InCluster), bearer token files re-read as they rotate,
// requests, content negotiation, discovery, the REST mapper and watch
// decoding are written here.
package client
