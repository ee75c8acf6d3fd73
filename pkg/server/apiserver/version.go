package apiserver

import (
	"encoding/json"
	"net/http"
	"runtime"

	"k8s.io/apimachinery/pkg/version"

	setpointversion "github.com/setpoint-dev/setpoint/internal/version"
)

// The Kubernetes API version this server speaks. Clients compare it with
// their own to warn about skew, so it names the API, not Setpoint.
const (
	kubeMajor = "1"
	kubeMinor = "34"
)

func defaultVersion() version.Info {
	return version.Info{
		Major: kubeMajor, Minor: kubeMinor,
		GitVersion:   "v" + kubeMajor + "." + kubeMinor + ".0+setpoint-" + setpointversion.Version,
		GitCommit:    setpointversion.Commit(),
		GitTreeState: "clean",
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
	}
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	b, _ := json.Marshal(s.cfg.Version)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
