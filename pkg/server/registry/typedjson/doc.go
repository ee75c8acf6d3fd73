// Package typedjson decodes the JSON body of a write to a typed built-in
// kind straight into the unstructured content the generic store works on.
//
// The reference path decodes the body strictly into the kind's Go type
// (sigs.k8s.io/json: wrongly typed values fail, unknown and repeated
// fields are reported) and converts that value with apimachinery's
// unstructured converter. Both walk the value by reflection and the
// second allocates it all again; on a create they cost as much as the
// rest of the request's handling. A Decoder compiles the Go type once
// into a plan and reads the JSON with internal/jsonscan, building the
// map the converter would build.
//
// It answers only where its answer is exactly the reference path's: a
// body with an unknown or repeated field, a value of the wrong type, a
// number that is not a plain integer or anything else it does not read
// as the decoder would makes Decode report false, and the caller takes
// the reference path, with its errors and warnings. Fields whose Go type
// has its own JSON or unstructured form (metav1.Time, resource.Quantity,
// intstr.IntOrString, floats, ...) are decoded by the reference path on
// their own, field by field, so their forms stay the reference path's.
package typedjson
