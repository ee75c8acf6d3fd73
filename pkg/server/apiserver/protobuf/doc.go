// Package protobuf converts between the JSON the server stores and
// Kubernetes protobuf for built-in kinds, for request bodies, responses
// and watch streams.
//
// The server keeps every object as JSON. Clients built on client-go or
// controller-runtime send built-in kinds as application/vnd.kubernetes.protobuf
// and ask for protobuf answers; a [Codec] turns such a request body into
// JSON ([Codec.DecodeToJSON]) and stored JSON into protobuf responses
// ([Codec.EncodeObject], [Codec.EncodeList], [Codec.EncodeStatus]) and
// watch-stream frames ([Codec.WatchFrame]). Custom resources are JSON only
// and never reach this package.
//
// # Wire format
//
// A protobuf body is the four bytes "k8s\x00" followed by a runtime.Unknown
// message whose typeMeta names the apiVersion and kind and whose raw field
// holds the object's own protobuf message. This is what apimachinery's
// protobuf.Serializer writes and reads; the Codec uses that serializer.
//
// A watch stream (StreamContentType) is a sequence of frames, each a
// 4-byte big-endian length followed by that many bytes of a
// metav1.WatchEvent message, encoded bare (no "k8s\x00" prefix and no
// runtime.Unknown envelope, as protobuf.RawSerializer writes it). The
// event's object.raw field holds the complete enveloped object, "k8s\x00"
// prefix included, exactly as EncodeObject or EncodeStatus returns it.
// This is what kube-apiserver writes (k8s.io/apiserver
// pkg/endpoints/handlers: serveWatchHandler picks the stream serializer
// and its framer, watchEncoder.doEncode wraps the embedded encoding in a
// WatchEvent), and what client-go's REST client reads (rest.Request's
// newStreamWatcher with rest/watch.Decoder).
//
// Encoded bytes do not depend on the watcher, so the server can encode an
// event once and write the same frame to every watcher.
package protobuf
