package apiserver

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// SnapshotPath serves a consistent copy of the store's database, which
// `setpoint snapshot save` fetches. It is not a Kubernetes path, and no
// Kubernetes path starts with it.
const SnapshotPath = "/snapshot"

// RevisionHeader carries a snapshot's revision.
const RevisionHeader = "X-Setpoint-Revision"

// StoreSnapshot is a copy of the store at one revision, open until Close.
type StoreSnapshot interface {
	Revision() int64
	Size() int64
	WriteTo(w io.Writer) (int64, error)
	Close() error
}

// snapshotGroup may take snapshots: the whole store, Secrets included, is
// in one, so only the cluster's administrators may.
const snapshotGroup = "system:masters"

// serveSnapshot streams a snapshot of the store. The length is known
// before the first byte, so a client tells a cut-off copy from a whole
// one.
func (s *Server) serveSnapshot(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeStatus(w, apierror.MethodNotAllowed())
		return
	}
	u := user.Caller(r.Context())
	if !slices.Contains(u.Groups, snapshotGroup) {
		writeStatus(w, apierror.New(http.StatusForbidden, metav1.StatusReasonForbidden,
			fmt.Sprintf("forbidden: User %q cannot get path %q", u.Username, r.URL.Path)))
		return
	}
	if s.cfg.Snapshot == nil {
		writeStatus(w, apierror.BadRequest("this server's storage takes no snapshots: only the embedded bolt store does; back up etcd with etcdctl snapshot save"))
		return
	}
	sn, err := s.cfg.Snapshot()
	if err != nil {
		writeStatus(w, apierror.From(err, schema.GroupResource{}, ""))
		return
	}
	defer sn.Close()
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(sn.Size(), 10))
	h.Set(RevisionHeader, strconv.FormatInt(sn.Revision(), 10))
	if _, err := sn.WriteTo(w); err != nil {
		// The client went away or the disk failed: the short body tells
		// the client, and the log tells the operator.
		s.log.Warn("snapshot cut short", "err", err, "revision", sn.Revision())
		return
	}
	s.log.Info("snapshot served", "revision", sn.Revision(), "bytes", sn.Size(), "user", u.Username)
}
