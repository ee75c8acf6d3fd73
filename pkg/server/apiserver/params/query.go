package params

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// Selection is a parsed label and field selector.
type Selection struct {
	label labels.Selector
	field fields.Selector
}

func (sel Selection) Empty() bool { return sel.label.Empty() && sel.field.Empty() }

func (sel Selection) Matches(o *watchcache.Object) bool {
	var f fields.Fields = fields.Set(nil)
	if o.Fields != nil {
		f = o.Fields
	}
	return sel.label.Matches(o.Labels) && sel.field.Matches(f)
}

// match is the Selection as the store takes it: nil selects everything.
func (sel Selection) Match() func(*watchcache.Object) bool {
	if sel.Empty() {
		return nil
	}
	return sel.Matches
}

func ParseSelection(q map[string][]string, res *registry.Resource) (Selection, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	ls, err := labels.Parse(get("labelSelector"))
	if err != nil {
		return Selection{}, apierror.BadRequest("unable to parse requirement: %v", err)
	}
	fs, err := fields.ParseSelector(get("fieldSelector"))
	if err != nil {
		return Selection{}, apierror.BadRequest("invalid field selector: %v", err)
	}
	for _, req := range fs.Requirements() {
		if !res.HasField(req.Field) {
			return Selection{}, apierror.BadRequest("%s", res.FieldSelectorRefusal(req.Field))
		}
	}
	return Selection{label: ls, field: fs}, nil
}

func ParseRV(rv string) (int64, error) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, apierror.BadRequest("invalid resource version %q", rv)
	}
	return n, nil
}

func ParseReadPoint(q map[string][]string) (generic.ReadPoint, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	rv, match := get("resourceVersion"), get("resourceVersionMatch")
	if rv == "" {
		if match != "" {
			return generic.ReadPoint{}, apierror.BadRequest("resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
		return generic.ReadPoint{Consistent: true}, nil
	}
	n, err := ParseRV(rv)
	if err != nil {
		return generic.ReadPoint{}, err
	}
	switch match {
	case "", "NotOlderThan":
		return generic.ReadPoint{NotOlder: n}, nil
	case "Exact":
		if n == 0 {
			return generic.ReadPoint{}, apierror.BadRequest("resourceVersionMatch %q is forbidden for resourceVersion \"0\"", match)
		}
		return generic.ReadPoint{Exact: n}, nil
	}
	return generic.ReadPoint{}, apierror.BadRequest("resourceVersionMatch must be NotOlderThan or Exact, not %q", match)
}

func ParseLimit(q map[string][]string) (int, error) {
	v := q["limit"]
	if len(v) == 0 || v[0] == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 0 {
		return 0, apierror.BadRequest("invalid limit %q", v[0])
	}
	return n, nil
}

func DryRun(q url.Values) (bool, error) {
	vals := q["dryRun"]
	for _, v := range vals {
		if v != "All" {
			return false, apierror.BadRequest("dryRun must be All, not %q", v)
		}
	}
	return len(vals) > 0, nil
}

// FieldValidation reads fieldValidation; kube-apiserver's default is
// Warn.
func FieldValidation(q url.Values) (registry.FieldValidation, error) {
	fv := registry.FieldValidation(q.Get("fieldValidation"))
	switch fv {
	case "":
		return registry.FieldWarn, nil
	case registry.FieldIgnore, registry.FieldWarn, registry.FieldStrict:
		return fv, nil
	}
	return "", apierror.BadRequest("fieldValidation must be one of Ignore, Warn or Strict, not %q", fv)
}
func Force(q url.Values) (bool, error) {
	switch v := q.Get("force"); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, apierror.BadRequest("force must be true or false, not %q", v)
	}
}

// queryParams are the parameters each verb accepts. Anything else is a
// client mistake worth a 400 rather than silently ignored; "watch" is
// accepted on lists because client-go sends watch=false on some paths.
var queryParams = func() map[registry.Verb]map[string]bool {
	common := []string{"pretty", "timeout"}
	listing := []string{"labelSelector", "fieldSelector", "resourceVersion", "resourceVersionMatch", "limit", "continue", "watch", "allowWatchBookmarks", "timeoutSeconds", "sendInitialEvents", "includeObject"}
	writing := []string{"dryRun", "fieldManager", "fieldValidation"}
	deleting := []string{"dryRun", "gracePeriodSeconds", "propagationPolicy", "orphanDependents", "ignoreStoreReadErrorWithClusterBreakingPotential"}
	set := func(lists ...[]string) map[string]bool {
		m := map[string]bool{}
		for _, l := range lists {
			for _, p := range l {
				m[p] = true
			}
		}
		return m
	}
	return map[registry.Verb]map[string]bool{
		registry.VerbGet:              set(common, []string{"resourceVersion", "includeObject"}),
		registry.VerbList:             set(common, listing),
		registry.VerbWatch:            set(common, listing),
		registry.VerbCreate:           set(common, writing),
		registry.VerbUpdate:           set(common, writing),
		registry.VerbPatch:            set(common, writing, []string{"force"}),
		registry.VerbDelete:           set(common, deleting),
		registry.VerbDeleteCollection: set(common, deleting, listing),
	}
}()

func CheckQuery(verb registry.Verb, q url.Values) error {
	allowed := queryParams[verb]
	for k := range q {
		if !allowed[k] {
			return apierror.BadRequest("unknown query parameter %q for %s", k, verb)
		}
	}
	return nil
}

// connectParams are the options of the subresources that reach a
// container (PodLogOptions, PodExecOptions, PodAttachOptions,
// PodPortForwardOptions).
var connectParams = map[registry.Subresource][]string{
	registry.SubresourceLog:         {"container", "follow", "previous", "sinceSeconds", "sinceTime", "timestamps", "tailLines", "limitBytes", "insecureSkipTLSVerifyBackend", "stream"},
	registry.SubresourceExec:        {"container", "command", "stdin", "stdout", "stderr", "tty"},
	registry.SubresourceAttach:      {"container", "stdin", "stdout", "stderr", "tty"},
	registry.SubresourcePortForward: {"ports"},
}

// ConnectQuery is CheckQuery for a subresource that reaches a container.
func ConnectQuery(sub registry.Subresource) func(registry.Verb, url.Values) error {
	return func(verb registry.Verb, q url.Values) error {
		for k := range q {
			if k != "pretty" && k != "timeout" && !slices.Contains(connectParams[sub], k) {
				return apierror.BadRequest("unknown query parameter %q for %s", k, verb)
			}
		}
		return nil
	}
}
