// Package openapi generates and serves the server's OpenAPI documents:
// /openapi/v2 (one Swagger 2.0 document for every group-version) and
// /openapi/v3 (an index of per-group-version OpenAPI 3.0 documents, each
// addressed by a content hash).
//
// Definitions come from two sources. Built-in kinds are described by
// reflecting over their k8s.io/api Go types (ForType): json tags name the
// fields, SwaggerDoc methods supply descriptions, patchStrategy and
// patchMergeKey tags become x-kubernetes-patch-* extensions, and types that
// describe themselves (OpenAPISchemaType, OpenAPIModelName) do so. Custom
// kinds are described by their CRD version's openAPIV3Schema (ForCRD). The
// same definitions feed server-side apply's type converter, so they carry
// x-kubernetes-group-version-kind and the list and map semantics
// structured-merge-diff reads.
//
// A Service holds one Resource list per group-version. SetGroupVersion only
// records the change; documents are assembled on request from fragments,
// one per definition and one per group-version's paths. Fragments are
// shared between documents, so definitions such as ObjectMeta are encoded
// and kept once, and after a CRD changes only its own fragments are
// encoded again. What is kept is what is costly to remake and often asked
// for (the v2 protobuf document kubectl reads, shared definitions); a v3
// document keeps only its hash, for the index, and is remade when fetched.
package openapi
