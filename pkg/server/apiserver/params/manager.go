package params

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
)

// maxManagerLength is kube-apiserver's limit on a field manager's name.
const maxManagerLength = 128

// Manager is the fieldManager a write is recorded under: the
// request's parameter, or else the client's User-Agent up to its first
// slash, as kube-apiserver derives it.
func Manager(r *http.Request, q url.Values) string {
	if m := q.Get("fieldManager"); m != "" {
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

// CheckFieldManager applies kube-apiserver's rules to the fieldManager
// parameter: printable and at most 128 bytes.
func CheckFieldManager(q url.Values) error {
	m := q.Get("fieldManager")
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
