package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKubectlBatch serves Jobs and CronJobs to the real kubectl:
// `kubectl create job`, `create cronjob` and `create job --from`
// (which reads the CronJob and posts a Job owned by it), then the
// tables kubectl prints for them, as kube-apiserver v1.33's. The Jobs'
// pods have no exit annotation and run on, so the Jobs stay Running at
// 0/1. The CronJob controller is off: a minute turning during the test
// would start a Job of c and change the counts.
func TestKubectlBatch(t *testing.T) {
	srv := startServer(t, serverConfig{dataDir: filepath.Join(t.TempDir(), "data"), args: []string{"--controllers=*,-cronjob"}})
	k := newKubectl(t, kubectlPath(t), srv)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "job", "j", "--image=busybox"}, "job.batch/j created"},
		{[]string{"create", "cronjob", "c", "--image=busybox", "--schedule=*/1 * * * *"}, "cronjob.batch/c created"},
		{[]string{"create", "job", "--from=cronjob/c", "j2"}, "job.batch/j2 created"},
	} {
		if out := k.ok(t, c.args...); strings.TrimSpace(out) != c.want {
			t.Fatalf("kubectl %s: %q, want %q", strings.Join(c.args, " "), out, c.want)
		}
	}

	// kubectl get of two kinds prints one table each, a blank line
	// apart.
	for _, wide := range []bool{false, true} {
		args := []string{"get", "jobs,cronjobs"}
		jobHeader := []string{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"}
		cronHeader := []string{"NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"}
		if wide {
			args = append(args, "-o", "wide")
			jobHeader = append(jobHeader, "CONTAINERS", "IMAGES", "SELECTOR")
			cronHeader = append(cronHeader, "CONTAINERS", "IMAGES", "SELECTOR")
		}
		out := k.ok(t, args...)
		parts := strings.Split(strings.TrimSpace(out), "\n\n")
		if len(parts) != 2 {
			t.Fatalf("kubectl %s: want two tables:\n%s", strings.Join(args, " "), out)
		}
		jobs, crons := parseTable(t, parts[0]), parseTable(t, parts[1])
		if !slices.Equal(jobs.header, jobHeader) || !slices.Equal(crons.header, cronHeader) {
			t.Errorf("kubectl %s: headers %q and %q, want %q and %q", strings.Join(args, " "), jobs.header, crons.header, jobHeader, cronHeader)
		}
		for _, want := range []map[string]string{
			{"NAME": "job.batch/j", "STATUS": "Running", "COMPLETIONS": "0/1"},
			{"NAME": "job.batch/j2", "STATUS": "Running", "COMPLETIONS": "0/1"},
		} {
			if wide {
				want["IMAGES"] = "busybox"
			}
			if _, ok := jobs.row(want); !ok {
				t.Errorf("kubectl %s: no job row %v in %v", strings.Join(args, " "), want, jobs.rows)
			}
		}
		cron := map[string]string{"NAME": "cronjob.batch/c", "SCHEDULE": "*/1 * * * *", "TIMEZONE": "<none>", "SUSPEND": "False", "ACTIVE": "0", "LAST SCHEDULE": "<none>"}
		if wide {
			cron["CONTAINERS"], cron["IMAGES"], cron["SELECTOR"] = "c", "busybox", "<none>"
		}
		if _, ok := crons.row(cron); !ok {
			t.Errorf("kubectl %s: no cronjob row %v in %v", strings.Join(args, " "), cron, crons.rows)
		}
		if len(jobs.rows) != 2 || len(crons.rows) != 1 {
			t.Errorf("kubectl %s: %d jobs and %d cronjobs, want 2 and 1", strings.Join(args, " "), len(jobs.rows), len(crons.rows))
		}
	}

	// The Job made from the CronJob is owned by it, and selects its
	// pods by its own uid.
	j2 := k.getJSON(t, "job", "j2")
	uid := str(j2, "metadata.uid")
	if got := k.ok(t, "get", "job", "j2", "-o", "wide", "--no-headers"); !strings.Contains(got, "batch.kubernetes.io/controller-uid="+uid) {
		t.Errorf("j2's selector is not its uid %s:\n%s", uid, got)
	}
	if got := k.ok(t, "get", "job", "j2", "-o", "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.labels.batch\\.kubernetes\\.io/job-name}"); got != "CronJob/c j2" {
		t.Errorf("j2 owner and job-name label %q, want %q", got, "CronJob/c j2")
	}
	// kubectl get all lists both kinds.
	all := k.ok(t, "get", "all")
	for _, want := range []string{"job.batch/j ", "job.batch/j2 ", "cronjob.batch/c "} {
		if !strings.Contains(all, want) {
			t.Errorf("kubectl get all lacks %q:\n%s", want, all)
		}
	}

	// kube's 422s, as kubectl prints them.
	if got := k.fails(t, "create", "cronjob", "bad", "--image=busybox", "--schedule=x"); !strings.Contains(got,
		`error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "x": expected exactly 5 fields, found 1: [x]`) {
		t.Errorf("bad schedule: %q", got)
	}
	manifest := writeFile(t, "always.yaml", `apiVersion: batch/v1
kind: Job
metadata: {name: always}
spec:
  template:
    spec:
      restartPolicy: Always
      containers: [{name: a, image: busybox}]
`)
	if got := k.fails(t, "create", "-f", manifest); !strings.Contains(got,
		`The Job "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`) {
		t.Errorf("restartPolicy Always: %q", got)
	}
}
