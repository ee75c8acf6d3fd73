// Package response is the last step of the server's data path: it picks
// the encoding a request asks for (Accept and Content-Type negotiation)
// and writes what the endpoints hand it, served JSON or watch-cache
// objects, as JSON, YAML, protobuf, a Table or PartialObjectMetadata,
// and runs a watch's stream: the events a watcher delivers, filtered by
// the endpoint's selection, framed, buffered and flushed under a write
// deadline. It knows objects only as bytes, watch-cache objects and
// registry descriptions, never the storage behind them, so endpoints of
// any store can share it; kube-apiserver keeps the same work in
// endpoints/handlers/negotiation, responsewriters and watch.go.
package response
