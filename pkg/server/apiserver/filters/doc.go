// Package filters holds the HTTP middleware the API server wraps around
// its routes, as kube-apiserver keeps its own in
// k8s.io/apiserver/pkg/server/filters: the request timeout, the in-flight
// limits, authentication, the access log, and the http.Server's error
// log. A request passes the access log and the timeout before it is
// routed; authentication and the in-flight seats come once the route
// knows what the request is for.
//
// The filters know nothing of the server: what they need of a request
// (its verb, resource and namespace) and of the server (its logger,
// limits, metrics, how it answers with a Status) is passed in.
package filters
