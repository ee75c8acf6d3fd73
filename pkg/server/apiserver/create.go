package apiserver

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// generateNameAttempts is how often a create with generateName retries a
// name that is taken before giving up with AlreadyExists.
const generateNameAttempts = 8

func (s *Server) create(w http.ResponseWriter, r *http.Request, req *request) error {
	u, warnings, err := s.decodeObject(w, r, req)
	if err != nil {
		return err
	}
	u = s.track(req.res, "", nil, u, managerName(r, req))
	return s.createObject(w, r, req, u, warnings)
}

// createObject stores a new object decoded from a request (create, or a
// server-side apply of an object that does not exist yet).
func (s *Server) createObject(w http.ResponseWriter, r *http.Request, req *request, u *unstructured.Unstructured, warnings []string) error {
	ctx := r.Context()
	res := req.res
	gr := res.GroupResource()
	if err := s.refuseIfTerminating(gr); err != nil {
		return err
	}
	if res.Namespaced {
		switch ns := u.GetNamespace(); {
		case req.namespace == "":
			// An empty namespace segment in the URL: kube-apiserver
			// clears the object's namespace, then finds it missing.
			return apierror.Invalid(res.GroupVersionKind().GroupKind(), u.GetName(), field.ErrorList{field.Required(field.NewPath("metadata", "namespace"), "")})
		case ns == "":
			u.SetNamespace(req.namespace)
		case ns != req.namespace:
			return apierror.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else {
		u.SetNamespace("")
	}
	now := s.now()
	prepareCreateMeta(u, now, res.TracksGeneration)
	if res.StatusSubresource {
		delete(u.Object, "status")
	}
	if res.Strategy != nil {
		if errs := res.Strategy.PrepareForCreate(now, u.Object); len(errs) > 0 {
			return apierror.Invalid(res.GroupVersionKind().GroupKind(), u.GetName(), errs)
		}
	}
	generate := u.GetName() == "" && u.GetGenerateName() != ""
	if generate {
		u.SetName(u.GetGenerateName() + rand.String(5))
	}
	if errs := append(validateMeta(u, res), res.Validate(ctx, u.Object, nil)...); len(errs) > 0 {
		return apierror.Invalid(res.GroupVersionKind().GroupKind(), u.GetName(), errs)
	}
	if res.Namespaced {
		if err := s.checkNamespace(ctx, u.GetNamespace(), gr, u.GetName()); err != nil {
			return err
		}
	}
	setWarnings(w, warnings)
	dryRun, err := parseDryRun(req)
	if err != nil {
		return err
	}
	if dryRun {
		b, err := storedBytes(u)
		if err != nil {
			return apierror.Internal(err)
		}
		return s.writeObject(w, r, res, http.StatusCreated, b)
	}
	for attempt := 0; ; attempt++ {
		val, err := s.storable(res, u, req.apply)
		if err != nil {
			return err
		}
		rev, err := s.store.Create(ctx, res.Key(u.GetNamespace(), u.GetName()), val)
		if errors.Is(err, storage.ErrAlreadyExists) && generate && attempt < generateNameAttempts {
			u.SetName(u.GetGenerateName() + rand.String(5))
			continue
		}
		if err != nil {
			return apierror.From(err, gr, u.GetName())
		}
		b, err := servedBytes(u, rev)
		if err != nil {
			return apierror.Internal(err)
		}
		if err := s.afterWrite(ctx, req, rev); err != nil {
			return err
		}
		return s.writeObject(w, r, res, http.StatusCreated, b)
	}
}

// prepareCreateMeta sets what the server owns in a new object's metadata.
func prepareCreateMeta(u *unstructured.Unstructured, now time.Time, generation bool) {
	meta, _ := u.Object["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		u.Object["metadata"] = meta
	}
	for _, k := range []string{"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(meta, k)
	}
	meta["uid"] = string(uuid.NewUUID())
	meta["creationTimestamp"] = metav1.Unix(now.Unix(), 0).UTC().Format("2006-01-02T15:04:05Z")
	if generation {
		meta["generation"] = int64(1)
	} else {
		delete(meta, "generation")
	}
}

// checkNamespace refuses a create in a namespace that does not exist
// (404) or is being deleted (403 NamespaceTerminating).
func (s *Server) checkNamespace(ctx context.Context, ns string, gr schema.GroupResource, name string) error {
	nsRes, ok := s.namespaces()
	if !ok {
		return nil
	}
	kv, err := s.store.Get(ctx, nsRes.Key("", ns))
	if errors.Is(err, storage.ErrNotFound) {
		return apierror.NotFound(nsRes.GroupResource(), ns)
	}
	if err != nil {
		return apierror.From(err, nsRes.GroupResource(), ns)
	}
	u, err := parseObject(kv.Value)
	if err != nil {
		return apierror.Internal(err)
	}
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	if u.GetDeletionTimestamp() != nil || phase == "Terminating" {
		e := apierror.New(http.StatusForbidden, metav1.StatusReasonForbidden,
			"unable to create new content in namespace "+ns+" because it is being terminated")
		e.Status.Details = &metav1.StatusDetails{Name: name, Kind: gr.String(),
			Causes: []metav1.StatusCause{{Type: "NamespaceTerminating", Message: "namespace " + ns + " is being terminated", Field: "metadata.namespace"}}}
		return e
	}
	return nil
}

func parseDryRun(req *request) (bool, error) {
	vals := req.query["dryRun"]
	for _, v := range vals {
		if v != "All" {
			return false, apierror.BadRequest("dryRun must be All, not %q", v)
		}
	}
	return len(vals) > 0, nil
}

// setWarnings adds Warning headers in the form kubectl prints.
func setWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", `299 - "`+strings.ReplaceAll(msg, `"`, `\"`)+`"`)
	}
}
