package apiserver

import (
	"context"
	"net/http"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema/cel"
)

// withRuleWarnings lets the validation of a write send, as kube-apiserver
// does, a Warning for each CRD validation rule failure that ratcheting
// lets through; each message once, however often an update is retried.
func withRuleWarnings(ctx context.Context, w http.ResponseWriter) context.Context {
	var mu sync.Mutex
	var sent map[string]bool
	return cel.WithWarnings(ctx, func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if sent[msg] {
			return
		}
		if sent == nil {
			sent = map[string]bool{}
		}
		sent[msg] = true
		setWarnings(w, []string{msg})
	})
}
