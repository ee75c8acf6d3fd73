package e2e_test

import (
	"strings"
	"testing"
	"time"
)

// fullWait is step 10: kubectl wait --for=condition=Ready returns once a
// kubectl patch --subresource=status sets the condition, and kubectl wait
// --for=delete once a deleted object is gone.
func fullWait(t *testing.T, e *fullEnv) {
	t.Run("condition", func(t *testing.T) {
		if help := e.k.ok(t, "patch", "--help"); !strings.Contains(help, "--subresource") {
			t.Fatalf("kubectl patch --help lacks --subresource:\n%s", help)
		}
		e.seed(t, e.widgetYAML("waited", map[string]any{"replicas": 1, "mode": "a"}))
		ref := e.widget("waited")
		wantWaitTimesOut(t, e, "--for=condition=Ready", ref)

		// With a status subresource the main resource ignores status
		// (whether kubectl then says "patched" or "patched (no change)").
		if out, want := e.ok(t, "patch", ref, "--type=merge", "-p", `{"status":{"replicas":9}}`), ref+" patched"; !strings.HasPrefix(out, want) {
			t.Errorf("patch of status through the main resource: %q, want %q", out, want)
		}
		if got := field(e.getJSON(t, ref), "status.replicas"); got != nil {
			t.Errorf("patch through the main resource set status.replicas to %v", got)
		}

		w := startWaiting(t, e, "--for=condition=Ready", ref)
		// The status subresource ignores spec.
		status := `{"spec":{"replicas":5},"status":{"replicas":1,"conditions":[{"type":"Ready","status":"True","reason":"Test","message":"ready","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}`
		if out, want := e.ok(t, "patch", ref, "--subresource=status", "--type=merge", "-p", status), ref+" patched\n"; out != want {
			t.Errorf("kubectl patch --subresource=status: %q, want %q", out, want)
		}
		r := w.waitExit(t)
		if r.err != nil || r.stdout != ref+" condition met" {
			t.Errorf("kubectl wait --for=condition=Ready: want %q: %v", ref+" condition met", r)
		}
		obj := e.getJSON(t, ref)
		if got, want := mustJSON(field(obj, "status.conditions")), `[{"lastTransitionTime":"2024-01-01T00:00:00Z","message":"ready","reason":"Test","status":"True","type":"Ready"}]`; got != want {
			t.Errorf("status.conditions %s, want %s", got, want)
		}
		if got, _ := num(obj, "spec.replicas"); got != 1 {
			t.Errorf("patch of the status subresource changed spec.replicas to %v", field(obj, "spec.replicas"))
		}
	})

	t.Run("delete", func(t *testing.T) {
		e.seed(t, e.widgetYAML("doomed", map[string]any{"mode": "a"}))
		ref := e.widget("doomed")
		e.ok(t, "patch", ref, "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
		if out, want := e.ok(t, "delete", ref, "--wait=false"), `widget.`+e.group+` "doomed" deleted`; !strings.HasPrefix(out, want) {
			t.Errorf("kubectl delete: %q, want %q", out, want)
		}
		wantWaitTimesOut(t, e, "--for=delete", ref)
		w := startWaiting(t, e, "--for=delete", ref)
		e.ok(t, "patch", ref, "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
		r := w.waitExit(t)
		if r.err != nil || r.stdout != ref+" condition met" {
			t.Errorf("kubectl wait --for=delete: want %q: %v", ref+" condition met", r)
		}
		e.wantNotFound(t, ref)
	})
}

// wantWaitTimesOut fails the test unless kubectl wait for the condition
// gives up: the condition does not hold yet.
func wantWaitTimesOut(t *testing.T, e *fullEnv, condition, ref string) {
	t.Helper()
	r := e.run(t, "wait", condition, ref, "--timeout=1s")
	if r.err == nil || !strings.Contains(r.stderr, "timed out") {
		t.Errorf("kubectl wait %s before it holds: want it to time out: %v", condition, r)
	}
}

// startWaiting starts kubectl wait for the condition and returns once it
// watches (its -v=6 log shows a watch request), so that what the test
// does next happens while kubectl waits.
func startWaiting(t *testing.T, e *fullEnv, condition, ref string) *background {
	t.Helper()
	w := e.k.start(t, longTimeout, e.nsArgs([]string{"wait", condition, ref, "--timeout=100s", "-v=6"})...)
	deadline := time.After(longTimeout)
	for {
		text, changed := w.stderr.snapshot()
		if strings.Contains(text, "watch=true") {
			return w
		}
		select {
		case <-changed:
		case <-w.done:
			t.Fatalf("kubectl wait %s ended before it watched: %v\nstderr:\n%s", condition, w.res.err, w.stderr.String())
		case <-deadline:
			t.Fatalf("kubectl wait %s made no watch request within %v; stderr:\n%s", condition, longTimeout, text)
		}
	}
}
