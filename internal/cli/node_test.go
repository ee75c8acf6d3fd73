package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodeagent"
)

// TestNode runs `setpoint node stop|start` against a server, in order:
// each step sees the node as the previous one left it.
func TestNode(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	ctx := context.Background()
	c := env.Client()
	for _, n := range []*corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "sim", Labels: map[string]string{nodeagent.LabelSimulated: "true"}, Annotations: map[string]string{"keep": "me"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "real"}},
	} {
		if err := c.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	kc := env.Kubeconfig(t)

	const absent = "<absent>"
	tests := []struct {
		name           string
		args           []string
		wantCode       int
		wantStdout     string
		wantStderr     string
		node           string // whose heartbeat annotation to check after
		wantAnnotation string
	}{
		{"stop", []string{"stop", "sim", "--kubeconfig", kc}, 0, "node/sim heartbeat stopped\n", "", "sim", nodeagent.HeartbeatStopped},
		{"stop again is no change", []string{"--kubeconfig", kc, "stop", "sim"}, 0, "node/sim heartbeat stopped\n", "", "sim", nodeagent.HeartbeatStopped},
		{"start", []string{"start", "--kubeconfig=" + kc, "sim"}, 0, "node/sim heartbeat started\n", "", "sim", absent},
		{"a node no agent runs is changed with a warning", []string{"stop", "real", "--kubeconfig", kc}, 0, "node/real heartbeat stopped\n", "is not simulated", "real", nodeagent.HeartbeatStopped},
		{"unknown node", []string{"stop", "nope", "--kubeconfig", kc}, 1, "", `nodes "nope" not found`, "", ""},
		{"unknown verb", []string{"pause", "sim", "--kubeconfig", kc}, 2, "", "Usage: setpoint node stop|start NAME", "", ""},
		{"no name", []string{"stop", "--kubeconfig", kc}, 2, "", "Usage: setpoint node", "", ""},
		{"two names", []string{"stop", "a", "b", "--kubeconfig", kc}, 2, "", "Usage: setpoint node", "", ""},
		{"bad flag", []string{"stop", "sim", "--nope"}, 2, "", "flag provided but not defined: -nope", "", ""},
		{"missing kubeconfig", []string{"stop", "sim", "--kubeconfig", t.TempDir() + "/none"}, 1, "", "setpoint node:", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := Run(ctx, append([]string{"node"}, tt.args...), &stdout, &stderr)
			if got != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", got, tt.wantCode, stderr.String())
			}
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) || tt.wantStderr == "" && stderr.Len() > 0 {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantStderr)
			}
			if tt.node == "" {
				return
			}
			n := &corev1.Node{}
			if err := c.Get(ctx, types.NamespacedName{Name: tt.node}, n); err != nil {
				t.Fatal(err)
			}
			v, ok := n.Annotations[nodeagent.AnnotationHeartbeat]
			if !ok {
				v = absent
			}
			if v != tt.wantAnnotation {
				t.Errorf("annotation %s = %q, want %q", nodeagent.AnnotationHeartbeat, v, tt.wantAnnotation)
			}
			if tt.node == "sim" && n.Annotations["keep"] != "me" {
				t.Errorf("other annotations lost: %v", n.Annotations)
			}
		})
	}
}
