package apiservertest_test

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
)

// The built-in controllers reach the server as the server itself, not as
// the admin, so the in-flight limits never refuse them.
func TestControllersGetLoopbackIdentity(t *testing.T) {
	got := make(chan string, 1)
	srv := apiservertest.StartWith(t, apiservertest.Options{
		Controllers: func(ctx context.Context, cfg *rest.Config) error {
			got <- cfg.BearerToken
			<-ctx.Done()
			return nil
		},
	})
	token := <-got
	if token != srv.Credentials.LoopbackToken || token == srv.Credentials.AdminToken {
		t.Errorf("controllers got token %q, want the loopback token %q", token, srv.Credentials.LoopbackToken)
	}
	if srv.Loopback.BearerToken != srv.Credentials.LoopbackToken || srv.Config.BearerToken != srv.Credentials.AdminToken {
		t.Error("Loopback and Config must carry the loopback and the admin token")
	}
}
