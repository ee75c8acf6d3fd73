package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/internal/processtest"
)

// readyJSONPath prints the Ready condition's status and reason.
const readyJSONPath = `jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].reason}`

// TestEndToEnd does what README.md tells a user to do, with the built
// binaries and kubectl: start `setpoint server`, create the CRD, run
// the operator, create a Foo, watch it become Ready, delete it, stop
// the operator.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server and the example")
	}
	kubectlBin := processtest.KubectlPath(t)
	bins := processtest.Build(t, "./cmd/setpoint", "./examples/foo")
	setpointBin, fooBin := bins[0], bins[1]
	server, kubeconfig := processtest.StartServer(t, setpointBin)
	k := &processtest.Kubectl{Bin: kubectlBin, Kubeconfig: kubeconfig, Home: t.TempDir()}

	// Setpoint serves no OpenAPI yet, which kubectl's client-side
	// validation needs.
	k.OK(t, "create", "-f", filepath.Join("config", "crd.yaml"))
	k.OK(t, "wait", "--for=condition=established", "crd/foos.foo.example.com", "--timeout=30s")

	healthAddr := processtest.FreeAddr(t)
	operator := processtest.Start(t, "foo", fooBin, "--kubeconfig", kubeconfig,
		"--health-addr", healthAddr, "--metrics-addr", "127.0.0.1:0", "--requeue-after", "1s",
		"--leader-elect", "--namespace", "default,kube-system")
	if err := operator.WaitOutput(t, `msg="starting workers"`); err != nil {
		t.Fatal(err)
	}

	checkLifecycle(t, k, operator, healthAddr)

	operator.Stop(t)
	server.Stop(t)
}

// checkLifecycle drives one Foo through what the README shows, against
// a running operator whose probes are at healthAddr: not Ready while its
// value is baz, Ready with its ConfigMap once it is bar, and gone with
// that ConfigMap after a delete.
func checkLifecycle(t *testing.T, k *processtest.Kubectl, operator *processtest.Process, healthAddr string) {
	t.Helper()
	if _, err := k.Run(t, fooManifest("x", "baz"), "create", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	k.WaitFor(t, "Unknown FooNotBar", "foo", "x", "-o", readyJSONPath)
	k.OK(t, "patch", "foo", "x", "--type=merge", "-p", `{"spec":{"value":"bar"}}`)
	k.WaitFor(t, "True FooIsBar", "foo", "x", "-o", readyJSONPath)
	k.WaitFor(t, "bar", "configmap", "x-foo", "-o", "jsonpath={.data.value}")
	if code := httpStatus(t, "http://"+healthAddr+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz: %d, want 200", code)
	}

	// kubectl delete waits until the object is gone, which the
	// finalizer holds off until the cleanup ran.
	k.OK(t, "delete", "foo", "x", "--timeout=30s")
	if out, err := k.Run(t, "", "get", "configmap", "x-foo"); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("the Foo's ConfigMap after cleanup: %q, %v; want NotFound", out, err)
	}
	if err := operator.WaitOutput(t, `msg="foo cleaned up"`); err != nil {
		t.Error(err)
	}
}

func fooManifest(name, value string) string {
	return `apiVersion: foo.example.com/v1
kind: Foo
metadata:
  name: ` + name + `
spec:
  value: ` + value + "\n"
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
