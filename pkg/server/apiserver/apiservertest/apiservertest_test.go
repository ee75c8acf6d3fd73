package apiservertest_test

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/internal/logtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
)

// The built-in controllers reach the server as the server itself, not as
// the admin, so the in-flight limits never refuse them: every request
// the server logs, the test making none, carries the loopback user.
func TestControllersGetLoopbackIdentity(t *testing.T) {
	logs := &logtest.Buffer{}
	srv := apiservertest.StartWith(t, apiservertest.Options{
		Logger:             logs.Logger(slog.LevelInfo),
		Configure:          func(cfg *apiserver.Config) { cfg.AccessLog = true },
		BuiltinControllers: true,
	})
	user := regexp.MustCompile(`msg=request .* user=(\S+) `)
	deadline := time.Now().Add(20 * time.Second)
	var users []string
	for len(users) < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		users = nil
		for _, m := range user.FindAllStringSubmatch(logs.String(), -1) {
			users = append(users, m[1])
		}
	}
	if len(users) < 4 {
		t.Fatalf("the controllers made %d requests in 20s, want at least 4:\n%s", len(users), logs)
	}
	for _, u := range users {
		if u != credentials.LoopbackUsername {
			t.Errorf("a request came as %q, want %q:\n%s", u, credentials.LoopbackUsername, logs)
			break
		}
	}
	if srv.Loopback.BearerToken != srv.Credentials.LoopbackToken || srv.Config.BearerToken != srv.Credentials.AdminToken {
		t.Error("Loopback and Config must carry the loopback and the admin token")
	}
}

// Without BuiltinControllers the server runs none: nothing but the
// test's own requests reaches it.
func TestNoControllersByDefault(t *testing.T) {
	logs := &logtest.Buffer{}
	apiservertest.StartWith(t, apiservertest.Options{
		Logger:    logs.Logger(slog.LevelInfo),
		Configure: func(cfg *apiserver.Config) { cfg.AccessLog = true },
	})
	time.Sleep(300 * time.Millisecond)
	if got := strings.Count(logs.String(), "msg=request "); got != 0 {
		t.Errorf("%d requests reached a server without controllers, want 0:\n%s", got, logs)
	}
}
