package apiserver

import (
	"net/http"
	"strings"
	"unicode"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
)

// maxManagerLength is kube-apiserver's limit on a field manager's name.
const maxManagerLength = 128

// managerName is the fieldManager a write is recorded under: the
// request's parameter, or else the client's User-Agent up to its first
// slash, as kube-apiserver derives it.
func managerName(r *http.Request, req *request) string {
	if m := req.query.Get("fieldManager"); m != "" {
		return m
	}
	ua, _, _ := strings.Cut(r.UserAgent(), "/")
	ua = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, ua)
	if len(ua) > maxManagerLength {
		ua = ua[:maxManagerLength]
	}
	return ua
}

// checkFieldManager applies kube-apiserver's rules to the fieldManager
// parameter: printable and at most 128 bytes.
func checkFieldManager(req *request) error {
	m := req.query.Get("fieldManager")
	if len(m) > maxManagerLength {
		return apierror.BadRequest("fieldManager: Too long: may not be more than %d bytes", maxManagerLength)
	}
	for _, r := range m {
		if !unicode.IsPrint(r) {
			return apierror.BadRequest("fieldManager: Invalid value: %q: must only contain printable characters", m)
		}
	}
	return nil
}
