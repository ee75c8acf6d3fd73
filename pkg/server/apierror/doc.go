// Package apierror is the server half's one error vocabulary: every
// refusal the object store or the HTTP endpoints make is a *StatusError,
// a Kubernetes Status with kube-apiserver's code, reason and wording, and
// From maps the typed errors of storage, the registry and the watch cache
// onto it. The store returns these errors without knowing HTTP; the
// endpoints write them as they are.
package apierror
