// Package controller is the Foo operator's reconciler, kept apart from
// main so tests run the very code the binary runs.
//
// For each Foo it keeps a ConfigMap named after the Foo that mirrors
// spec.value (what a real operator would do with a Deployment or a
// cloud resource), and reports on the Foo's Ready condition whether the
// value is the one it wants, "bar". A finalizer makes sure the
// ConfigMap is deleted before the Foo goes: Setpoint's server has no
// garbage collector, and a real cluster's would only follow the owner
// reference later.
package controller
