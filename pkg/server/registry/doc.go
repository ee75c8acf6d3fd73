// Package registry describes the resources the API server serves.
//
// In the data path it sits between the HTTP layer (package apiserver) and
// storage: a Resource says everything the one generic REST path needs to
// serve a kind — its names, scope, subresources, selectable fields, table
// columns, the rules for its metadata and the Strategy hooks where a kind
// genuinely differs. Built-in kinds and custom resources are described the
// same way; a CustomResourceDefinition is turned into Resources by
// FromCRD, and the Registry holds the live set as CRDs come and go.
package registry
