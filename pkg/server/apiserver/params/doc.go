// Package params reads what an API request asks for beyond its path:
// the query parameters each verb accepts (selectors, read points,
// limits, dry run, field validation, the field manager, force), the
// DeleteOptions of a delete, and the object in a create or update body,
// in JSON, YAML or protobuf. It answers malformed input with the
// 400s kube-apiserver gives, and bounds what a body may hold; the
// endpoints pass what it returns to the object store.
package params
