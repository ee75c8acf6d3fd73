package main

import (
	"path/filepath"
	"strings"
	"testing"
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
	kubectlBin := kubectlPath(t)
	setpointBin, fsmBin := buildBinaries(t)
	server, kubeconfig := startServer(t, setpointBin)
	k := &kubectl{bin: kubectlBin, kubeconfig: kubeconfig, home: t.TempDir()}

	// Setpoint serves no OpenAPI yet, which kubectl's client-side
	// validation needs.
	k.ok(t, "apply", "-f", filepath.Join("config", "crd.yaml"), "--validate=false")
	k.ok(t, "wait", "--for=condition=established", "crd/pipelines.fsm.example.com", "--timeout=30s")

	operator := startProcess(t, "fsm", fsmBin, "--kubeconfig", kubeconfig,
		"--health-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	if err := operator.waitOutput(t, `msg="starting workers"`); err != nil {
		t.Fatal(err)
	}

	if _, err := k.run(t, pipelineManifest, "apply", "-f", "-", "--validate=false"); err != nil {
		t.Fatal(err)
	}
	k.ok(t, "wait", "--for=condition=Ready", "pipeline/release", "--timeout=30s")
	k.waitFor(t, "Validated=True/ValidSpec Provisioned=True/ConfigMapWritten Published=True/Published Ready=True/Ready ",
		"pipeline", "release", "-o", conditionsJSONPath)
	// What the runners would see: published ConfigMaps and their stages.
	k.waitFor(t, "release-pipeline: build\ntest\ndeploy\n", "configmaps", "-l", "fsm.example.com/published=true",
		"-o", `jsonpath={range .items[*]}{.metadata.name}: {.data.stages}{"\n"}{end}`)

	k.ok(t, "patch", "pipeline", "release", "--type=merge", "-p", `{"spec":{"suspend":true}}`)
	k.waitFor(t, "Validated=True/ValidSpec Provisioned=True/ConfigMapWritten Published=False/Suspended Ready=False/Suspended ",
		"pipeline", "release", "-o", conditionsJSONPath)
	k.waitFor(t, "", "configmaps", "-l", "fsm.example.com/published=true", "-o", "name")

	// kubectl delete waits until the object is gone, which the
	// finalizer holds off until the deletion states are done.
	k.ok(t, "delete", "pipeline", "release", "--timeout=30s")
	if out, err := k.run(t, "", "get", "configmap", "release-pipeline"); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("the Pipeline's ConfigMap after deletion: %q, %v; want NotFound", out, err)
	}

	operator.stop(t)
	server.stop(t)
}

const pipelineManifest = `apiVersion: fsm.example.com/v1
kind: Pipeline
metadata:
  name: release
spec:
  stages: [build, test, deploy]
`
