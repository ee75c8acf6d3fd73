package params

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

func FuzzParseSelection(f *testing.F) {
	for _, s := range [][2]string{
		{"a=b", "metadata.name=x"},
		{"a in (b,c),!d", "involvedObject.kind!=Pod"},
		{"a notin (b), e", "source=kubelet,type==Normal"},
		{"x==y,z!=w", "metadata.namespace=default"},
		{"(", "=,"},
		{"a in (", "metadata.name"},
	} {
		f.Add(s[0], s[1])
	}
	var events *registry.Resource
	for _, r := range registry.Builtin() {
		if r.Plural == "events" && r.Group == "" {
			events = r
		}
	}
	f.Fuzz(func(t *testing.T, ls, fs string) {
		sel, err := ParseSelection(url.Values{"labelSelector": {ls}, "fieldSelector": {fs}}, events)
		if err != nil {
			var se *apierror.StatusError
			if !asStatus(err, &se) || se.Status.Code != http.StatusBadRequest {
				t.Fatalf("selector error is not a 400 Status: %v", err)
			}
			return
		}
		// A parsed selector must print to something that parses the same.
		again, err := ParseSelection(url.Values{"labelSelector": {sel.label.String()}, "fieldSelector": {sel.field.String()}}, events)
		if err != nil {
			t.Fatalf("selector %q / %q printed as %q / %q, which does not parse: %v", ls, fs, sel.label.String(), sel.field.String(), err)
		}
		if again.label.String() != sel.label.String() || again.field.String() != sel.field.String() {
			t.Fatalf("selector round trip changed it: %q -> %q", sel.label.String(), again.label.String())
		}
	})
}

func asStatus(err error, se **apierror.StatusError) bool {
	s, ok := err.(*apierror.StatusError)
	*se = s
	return ok
}
