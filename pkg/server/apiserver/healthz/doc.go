// Package healthz answers the API server's probes, /healthz, /livez and
// /readyz, as kube-apiserver's k8s.io/apiserver/pkg/server/healthz does:
// a request reaches it before authentication (the endpoints are public),
// or after it for a single check's reason. The checks look at what the
// server hands in (its store, its watch cache, its log, its lifecycle);
// the package knows nothing else of the server.
package healthz
