package response

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// WriteStatus writes an API error as a JSON Status; every client decodes
// JSON errors whatever it asked for.
func WriteStatus(w http.ResponseWriter, e *apierror.StatusError) {
	b, _ := json.Marshal(&e.Status)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache, private")
	if e.Status.Details != nil && e.Status.Details.RetryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(int(e.Status.Details.RetryAfterSeconds)))
	}
	w.WriteHeader(int(e.Status.Code))
	_, _ = w.Write(b)
}

// WriteSuccess writes a Status with status Success, as deletes of
// built-in kinds answer.
func WriteSuccess(w http.ResponseWriter, res *registry.Resource, name, uid string) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: name, Group: res.Group, Kind: res.Plural},
	}
	st.Details.UID = types.UID(uid)
	b, _ := json.Marshal(&st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// WriteCreated answers a create that makes no object of its own (a
// binding) as kube-apiserver does: a Success Status, code 201.
func WriteCreated(w http.ResponseWriter) {
	b, _ := json.Marshal(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(b)
}
