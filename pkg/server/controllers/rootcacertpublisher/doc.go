// Package rootcacertpublisher publishes the cluster's CA bundle in every
// active namespace, as kube-controller-manager's root-ca-cert-publisher
// does: a ConfigMap "kube-root-ca.crt" whose "ca.crt" is the PEM that
// verifies the API server, which pods mount (projected service account
// volumes include it) to trust the server they call.
//
//	Namespaces (informer, creations and active updates) -> this controller
//	ConfigMaps named kube-root-ca.crt (informer)         ->
//	      -> POST the ConfigMap, or PUT it back to what it should hold
//
// A ConfigMap deleted comes back; one whose data was changed is put back
// (data replaced whole, the description annotation restored). As in
// kube, an annotation that is present is not rewritten, and other
// annotations and labels are kept. A namespace not Active (Terminating)
// is left alone, so the namespace controller can empty it. The bundle
// is the CA of the controllers' own connection to the server, unless
// configured (Options.CA). What a namespace needs is a pure function
// (Decide).
package rootcacertpublisher
