// Package registry describes the resources the API server serves.
//
// A Resource says everything the one generic object store (package
// registry/generic) and the endpoints need to serve a kind: its names,
// scope, subresources, selectable fields, table columns, and the Strategy
// and optional hooks where a kind genuinely differs (hooks.go lists
// them). Built-in kinds and custom resources are described the same way;
// a CustomResourceDefinition is turned into Resources by FromCRD, and the
// Registry holds the live set as CRDs come and go.
package registry
