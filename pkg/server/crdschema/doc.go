// Package crdschema implements structural OpenAPI v3 schemas of
// CustomResourceDefinitions, the way kube-apiserver uses them.
//
// The API server calls New when a CRD is created or updated: it rejects
// schemas that are not structural (with the field errors kube reports,
// answered as 422) and otherwise compiles the schema once into a compact
// tree. For every custom object that is written the server then runs
// Prune (drop fields the schema does not specify), Default (fill in
// defaults) and Validate (check the object against the schema); reads run
// Default only, and HasDefaults lets them skip even that. Updates call
// ValidateUpdate instead of Validate: like kube-apiserver, it ratchets,
// letting an update keep invalid values that it does not change.
//
// Objects are the generic JSON form produced by
// sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts: map[string]any,
// []any, string, bool, nil, int64 for integers and float64 for other
// numbers. The hot paths use no reflection and allocate only to report
// problems or to copy default values into an object.
//
// CEL rules (x-kubernetes-validations) are not evaluated here; the
// schema/cel package does that, compiling them from this package's tree
// (Node) and ratcheting them with its correlation of old and new values
// (Correlated, MapListMatcher, Unchanged). EqualJSON is the server's one
// equality of decoded JSON values.
package crdschema
