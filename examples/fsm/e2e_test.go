package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/internal/processtest"
)

// conditionsJSONPath prints each condition as type=status/reason.
const conditionsJSONPath = `jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason} {end}`

// TestEndToEnd does what README.md tells a user to do, with the built
// binaries and kubectl: start `setpoint server`, apply the CRD, run the
// operator, apply a Pipeline, watch it become Ready, suspend it, delete
// it, stop the operator.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server and the example")
	}
	kubectlBin := processtest.KubectlPath(t)
	bins := processtest.Build(t, "./cmd/setpoint", "./examples/fsm")
	setpointBin, fsmBin := bins[0], bins[1]
	server, kubeconfig := processtest.StartServer(t, setpointBin)
	k := &processtest.Kubectl{Bin: kubectlBin, Kubeconfig: kubeconfig, Home: t.TempDir()}

	// Setpoint serves no OpenAPI yet, which kubectl's client-side
	// validation needs.
	k.OK(t, "apply", "-f", filepath.Join("config", "crd.yaml"))
	k.OK(t, "wait", "--for=condition=established", "crd/pipelines.fsm.example.com", "--timeout=30s")

	operator := processtest.Start(t, "fsm", fsmBin, "--kubeconfig", kubeconfig,
		"--health-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	if err := operator.WaitOutput(t, `msg="starting workers"`); err != nil {
		t.Fatal(err)
	}

	if _, err := k.Run(t, pipelineManifest, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	k.OK(t, "wait", "--for=condition=Ready", "pipeline/release", "--timeout=30s")
	k.WaitFor(t, "Validated=True/ValidSpec Provisioned=True/ConfigMapWritten Published=True/Published Ready=True/Ready ",
		"pipeline", "release", "-o", conditionsJSONPath)
	// What the runners would see: published ConfigMaps and their stages.
	k.WaitFor(t, "release-pipeline: build\ntest\ndeploy\n", "configmaps", "-l", "fsm.example.com/published=true",
		"-o", `jsonpath={range .items[*]}{.metadata.name}: {.data.stages}{"\n"}{end}`)

	k.OK(t, "patch", "pipeline", "release", "--type=merge", "-p", `{"spec":{"suspend":true}}`)
	k.WaitFor(t, "Validated=True/ValidSpec Provisioned=True/ConfigMapWritten Published=False/Suspended Ready=False/Suspended ",
		"pipeline", "release", "-o", conditionsJSONPath)
	k.WaitFor(t, "", "configmaps", "-l", "fsm.example.com/published=true", "-o", "name")

	// kubectl delete waits until the object is gone, which the
	// finalizer holds off until the deletion states are done.
	k.OK(t, "delete", "pipeline", "release", "--timeout=30s")
	if out, err := k.Run(t, "", "get", "configmap", "release-pipeline"); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("the Pipeline's ConfigMap after deletion: %q, %v; want NotFound", out, err)
	}

	operator.Stop(t)
	server.Stop(t)
}

const pipelineManifest = `apiVersion: fsm.example.com/v1
kind: Pipeline
metadata:
  name: release
spec:
  stages: [build, test, deploy]
`
