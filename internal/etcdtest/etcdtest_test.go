package etcdtest

import (
	"errors"
	"net"
	"path/filepath"
	"testing"

	"github.com/setpoint-dev/setpoint/internal/processtest"
)

// TestPortTaken: a member whose client port another process holds is
// told apart from other failures to start, so that Start can pick other
// ports.
func TestPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	m := &Member{
		Name:      "m0",
		ClientURL: "http://" + ln.Addr().String(),
		PeerURL:   "http://" + processtest.FreeAddr(t),
		DataDir:   filepath.Join(t.TempDir(), "m0"),
		bin:       Binary(t),
	}
	m.logPath = m.DataDir + ".log"
	m.cluster = m.Name + "=" + m.PeerURL
	if err := m.start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	if err := m.waitReady(); !errors.Is(err, errPortTaken) {
		t.Fatalf("got %v, want errPortTaken", err)
	}
}

func TestStart(t *testing.T) {
	c := Start(t, 1)
	if got := len(c.Endpoints()); got != 1 {
		t.Fatalf("%d endpoints, want 1", got)
	}
}
