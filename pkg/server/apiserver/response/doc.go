// Package response is the last step of the server's data path: it picks
// the encoding a request asks for (Accept and Content-Type negotiation)
// and writes what the endpoints hand it, served JSON or watch-cache
// objects, as JSON, YAML, protobuf, a Table or PartialObjectMetadata,
// including the frames of a watch stream. It knows objects only as
// bytes and registry descriptions, never storage, so endpoints of any
// store can share it; kube-apiserver keeps the same work in
// endpoints/handlers/negotiation and responsewriters.
package response
