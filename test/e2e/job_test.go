package e2e_test

import (
	"strings"
	"testing"
)

// TestKubectlJob runs Jobs to their end under the Job controller and the
// simulated node: a Job of 5 completions, 2 at a time, whose pods exit 0
// after a second, is Complete for `kubectl wait` and shows 5/5 in
// `kubectl get jobs`; one whose pod exits 1 under backoffLimit 0 is
// Failed with reason BackoffLimitExceeded.
func TestKubectlJob(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)
	manifest := writeFile(t, "jobs.yaml", `apiVersion: batch/v1
kind: Job
metadata: {name: five}
spec:
  completions: 5
  parallelism: 2
  template:
    metadata:
      annotations: {setpoint.dev/exit-after: 1s}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: broken}
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations: {setpoint.dev/exit-after: 0s, setpoint.dev/exit-code: "1"}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`)
	if out := k.ok(t, "apply", "-f", manifest); !strings.Contains(out, "job.batch/five created") || !strings.Contains(out, "job.batch/broken created") {
		t.Fatalf("kubectl apply: %q", out)
	}
	if out := k.ok(t, "wait", "--for=condition=complete", "job/five", "--timeout=25s"); strings.TrimSpace(out) != "job.batch/five condition met" {
		t.Errorf("kubectl wait complete: %q", out)
	}
	if out := k.ok(t, "wait", "--for=condition=failed", "job/broken", "--timeout=25s"); strings.TrimSpace(out) != "job.batch/broken condition met" {
		t.Errorf("kubectl wait failed: %q", out)
	}
	jobs := parseTable(t, k.ok(t, "get", "jobs"))
	for _, want := range []map[string]string{
		{"NAME": "five", "STATUS": "Complete", "COMPLETIONS": "5/5"},
		{"NAME": "broken", "STATUS": "Failed", "COMPLETIONS": "0/1"},
	} {
		row, ok := jobs.row(want)
		if !ok {
			t.Errorf("kubectl get jobs: no row %v in %v", want, jobs.rows)
			continue
		}
		if row["NAME"] == "five" && row["DURATION"] == "" {
			t.Errorf("kubectl get jobs: the complete job has no DURATION: %v", row)
		}
	}
	if got := k.ok(t, "get", "job", "broken", "-o", "jsonpath={.status.conditions[?(@.type==\"Failed\")].reason} {.status.failed}"); got != "BackoffLimitExceeded 1" {
		t.Errorf("broken job: reason and failed count %q", got)
	}
	pods := parseTable(t, k.ok(t, "get", "pods", "-l", "batch.kubernetes.io/job-name=five"))
	if len(pods.rows) != 5 {
		t.Errorf("job five has %d pods, want 5: %v", len(pods.rows), pods.rows)
	}
	for _, p := range pods.rows {
		if p["STATUS"] != "Completed" || !strings.HasPrefix(p["NAME"], "five-") {
			t.Errorf("pod %v", p)
		}
	}
}
