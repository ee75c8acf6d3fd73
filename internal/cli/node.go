package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodeagent"
)

// nodeRequestTimeout bounds the whole command: one read-modify-write.
const nodeRequestTimeout = 30 * time.Second

// runNode stops or restarts a simulated node's kubelet: `setpoint node
// stop NAME` annotates the node setpoint.dev/heartbeat: stopped, so the
// node agent stops renewing its lease and status (and the node lifecycle
// controller in time marks it unreachable); `setpoint node start NAME`
// removes the annotation. The change goes through the API as the admin.
func runNode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flags("node", stderr)
	kubeconfig := fs.String("kubeconfig", "./setpoint-data/kubeconfig", "kubeconfig reaching the server (the one `setpoint server` wrote)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: setpoint node stop|start NAME [--kubeconfig PATH]\n\n"+
			"stop: the simulated node's kubelet stops posting its lease and status (setpoint.dev/heartbeat: stopped)\n"+
			"start: it posts them again\n\nFlags:")
		fs.PrintDefaults()
	}
	// Flags may come before or after the verb and the name.
	pos, ok := parseInterspersed(fs, args)
	if !ok {
		return 2
	}
	if len(pos) != 2 || (pos[0] != "stop" && pos[0] != "start") {
		fs.Usage()
		return 2
	}
	verb, name := pos[0], pos[1]
	var value any // null removes the annotation in a merge patch
	if verb == "stop" {
		value = nodeagent.HeartbeatStopped
	}
	cfg, err := client.Config(*kubeconfig, "")
	if err != nil {
		fmt.Fprintf(stderr, "setpoint node: %v\n", err)
		return 1
	}
	c, err := client.New(cfg, client.Options{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		fmt.Fprintf(stderr, "setpoint node: %v\n", err)
		return 1
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{nodeagent.AnnotationHeartbeat: value}}})
	if err != nil {
		fmt.Fprintf(stderr, "setpoint node: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(ctx, nodeRequestTimeout)
	defer cancel()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	// A merge patch leaves the rest of the node alone and cannot
	// conflict with the agent's or the controllers' writes.
	if err := c.Patch(ctx, node, types.MergePatchType, patch); err != nil {
		fmt.Fprintf(stderr, "setpoint node %s: %v\n", verb, err)
		return 1
	}
	if !nodeagent.IsSimulated(node) {
		fmt.Fprintf(stderr, "setpoint node %s: warning: node %s is not simulated (label %s=true), so no agent heeds its heartbeat annotation\n",
			verb, name, nodeagent.LabelSimulated)
	}
	fmt.Fprintf(stdout, "node/%s heartbeat %s\n", name, map[string]string{"stop": "stopped", "start": "started"}[verb])
	return 0
}
