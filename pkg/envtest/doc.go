// Package envtest is the test environment for operator authors: a real
// Setpoint API server started in-process, with the built-in controllers
// (namespace lifecycle, garbage collection, CRD cleanup, event TTL)
// running as in `setpoint server`, the CRDs of a folder installed, a
// manager running the controllers under test, and Eventually-style
// waits.
//
// It plays the role of controller-runtime's envtest, without its
// downloaded etcd and kube-apiserver binaries: the server is a library,
// so Start takes milliseconds and needs nothing on the machine. It is
// made for Go tests: every function takes the test, fails it on error
// and stops what it started when the test ends.
//
//	func TestFoo(t *testing.T) {
//		env := envtest.Start(t, envtest.WithCRDs("../config"), envtest.WithScheme(scheme))
//		env.StartManager(t, func(m *manager.Manager) error {
//			return foocontroller.Setup(m, &foocontroller.Reconciler{})
//		})
//		// create objects with env.Client(), then
//		envtest.Eventually(t, "the ConfigMap", func() error { ... })
//	}
//
// Env.Config is an ordinary *rest.Config, so client-go and
// controller-runtime clients work against the server as well.
package envtest
