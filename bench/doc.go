// Package bench holds side-by-side benchmarks of Setpoint's runtime
// against the libraries it replaces (client-go), run on the same load in
// the same process. It is a separate module so that the product's module
// never depends on client-go's runtime packages.
package bench
