package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// watchEvent is one line of a JSON watch stream, its object a Pod.
type watchEvent struct {
	Type   string     `json:"type"`
	Object corev1.Pod `json:"object"`
}

// TestProxyWatchPodLifecycle watches pods the way people do with curl
// behind `kubectl proxy`: a LIST for the resourceVersion, then a plain
// HTTP GET ?watch=true&resourceVersion=<it>, read line by line. While
// `kubectl run` creates a pod that the scheduler binds and the simulated
// node starts, and `kubectl delete` removes it, the stream shows ADDED
// (Pending, unscheduled), MODIFIED up to Running and Ready, MODIFIED with
// a deletionTimestamp, and DELETED, each with a newer resourceVersion.
func TestProxyWatchPodLifecycle(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)
	proxy := k.start(t, 2*time.Minute, "proxy", "--port=0")
	f := proxy.waitLine(t, "Starting", "to", "serve", "on")
	base := "http://" + f[len(f)-1]

	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	resp, err := http.Get(base + "/api/v1/namespaces/default/pods")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || list.Metadata.ResourceVersion == "" {
		t.Fatalf("LIST through the proxy: %s, rv %q, err %v", resp.Status, list.Metadata.ResourceVersion, err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/namespaces/default/pods?watch=true&resourceVersion="+list.Metadata.ResourceVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("watch through the proxy: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	lines := make(chan watchEvent)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev watchEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("watch line %q: %v", sc.Text(), err)
				return
			}
			select {
			case lines <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	var seen []string
	next := func(what string) watchEvent {
		t.Helper()
		select {
		case ev, ok := <-lines:
			if !ok {
				t.Fatalf("watch ended waiting for %s; saw %v", what, seen)
			}
			s := ev.Type + " " + string(ev.Object.Status.Phase)
			if ev.Object.DeletionTimestamp != nil {
				s += " deleting"
			}
			seen = append(seen, s)
			return ev
		case <-time.After(eventTimeout):
			t.Fatalf("no watch event within %v waiting for %s; saw %v", eventTimeout, what, seen)
		}
		panic("unreachable")
	}

	k.ok(t, "run", "web", "--image=nginx")
	added := next("ADDED")
	if added.Type != "ADDED" || added.Object.Name != "web" || added.Object.Spec.NodeName != "" || added.Object.Status.Phase != corev1.PodPending {
		t.Fatalf("first event: got %s %s node %q phase %s, want ADDED web unscheduled and Pending", added.Type, added.Object.Name, added.Object.Spec.NodeName, added.Object.Status.Phase)
	}
	lastRV := added.Object.ResourceVersion
	newer := func(ev watchEvent) {
		t.Helper()
		if len(ev.Object.ResourceVersion) < len(lastRV) || len(ev.Object.ResourceVersion) == len(lastRV) && ev.Object.ResourceVersion <= lastRV {
			t.Errorf("%s: resourceVersion %s is not after %s", ev.Type, ev.Object.ResourceVersion, lastRV)
		}
		lastRV = ev.Object.ResourceVersion
	}
	var bound bool
	for {
		ev := next("MODIFIED to Running and Ready")
		if ev.Type != "MODIFIED" || ev.Object.Name != "web" {
			t.Fatalf("got %s %s, want MODIFIED web; saw %v", ev.Type, ev.Object.Name, seen)
		}
		newer(ev)
		bound = bound || ev.Object.Spec.NodeName == "sim-node-0"
		if ev.Object.Status.Phase == corev1.PodRunning && ready(&ev.Object) {
			break
		}
	}
	if !bound {
		t.Errorf("no MODIFIED event showed the pod bound to sim-node-0; saw %v", seen)
	}

	k.ok(t, "delete", "pod", "web", "--wait=false")
	for {
		ev := next("DELETED")
		newer(ev)
		if ev.Type == "DELETED" {
			break
		}
		if ev.Type != "MODIFIED" || ev.Object.DeletionTimestamp == nil {
			t.Fatalf("got %s without a deletionTimestamp while deleting; saw %v", ev.Type, seen)
		}
	}
	i := slices.IndexFunc(seen, func(s string) bool { return strings.HasSuffix(s, "deleting") })
	if i < 0 {
		t.Errorf("no MODIFIED event with a deletionTimestamp before DELETED (graceful deletion); saw %v", seen)
	}
	t.Logf("watch events: %v", seen)
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
