// Package cel evaluates the CEL validation rules of CustomResourceDefinitions
// (x-kubernetes-validations in a version's openAPIV3Schema) the way
// kube-apiserver does.
//
// It sits on two points of the server's write path:
//
//   - When a CRD is created or updated, New type-checks every rule against
//     CEL types derived from the compiled structural schema (package crdschema's
//     tree, the one that prunes, defaults and validates; Compile compiles that
//     tree first) and estimates its worst-case cost. Its
//     field errors are part of the CRD's validation and are answered as 422, so
//     a rule that does not compile, or that could be too expensive, never gets
//     into storage.
//   - When a custom object is created or updated, Validate evaluates the
//     compiled rules against the object (and, for transition rules, the stored
//     object) after schema validation, within kube's runtime cost budget. Its
//     field errors reject the write with 422 as well.
//
// New runs once per CRD version; Validate runs on every write of a custom
// object, so the evaluation path avoids converting the object up front: values
// are wrapped lazily and converted to CEL only where a rule reads them.
//
// Kube's own CEL libraries for CRD rules are here: lists (isSorted, sum,
// min, max, indexOf, lastIndexOf), regex (find, findAll), quantity, url, ip,
// cidr, format and semver, costed as kube costs them. Where this differs
// from kube: quantity mul/div and the image and authz libraries are left
// out; quantities whose power of ten exceeds 1000 are refused, since kube's
// parser can spend minutes on them; semver and format are available to every
// rule whatever version introduced them. Rules whose self is unchanged from
// the old object ratchet (ratchet.go), matching old and new values with
// package crdschema's correlation, the one its ValidateUpdate uses; a messageExpression sees the same
// oldSelf as its rule.
package cel
