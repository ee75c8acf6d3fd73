package registry

import (
	"context"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// certificatesGroup is the API group of CertificateSigningRequests.
const certificatesGroup = certificatesv1.GroupName

// certificatesBuiltins are certificates.k8s.io/v1's kinds: the
// CertificateSigningRequest, through which a client asks a signer (the
// built-in controllers sign for the kubernetes.io signers) for a
// certificate, once someone allowed to approve for that signer has.
func certificatesBuiltins(o BuiltinOptions) []*Resource {
	var g *signerGuard
	if o.Authorizer != nil {
		g = &signerGuard{authz: o.Authorizer}
	}
	spec, status := certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc(), certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()
	return []*Resource{{
		Group: certificatesGroup, Version: "v1", Kind: "CertificateSigningRequest", ListKind: "CertificateSigningRequestList",
		Plural: "certificatesigningrequests", Singular: "certificatesigningrequest", ShortNames: []string{"csr"},
		StatusSubresource: true, Typed: true,
		// kube checks no name rule of its own, only that the name is a
		// path segment.
		NameIsPathSegment: true,
		SelectableFields:  []string{"spec.signerName"},
		// kube prints Age second and describes the columns with
		// v1beta1's field docs, Requestor with the request's.
		Columns: []Column{
			{Name: "Age", Type: "string", Path: ".metadata.creationTimestamp", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "SignerName", Type: "string", Description: spec["signerName"], Value: signerNameCell},
			{Name: "Requestor", Type: "string", Path: ".spec.username", Description: spec["request"]},
			{Name: "RequestedDuration", Type: "string", Description: spec["expirationSeconds"], Value: requestedDuration},
			{Name: "Condition", Type: "string", Description: status["conditions"], Value: csrCondition},
		},
		Strategy: csrStrategy{guard: g, now: time.Now},
	}}
}

// csrStrategy holds CertificateSigningRequests to kube-apiserver's
// rules. A request is immutable once created: the requestor is who
// created it, the approval subresource alone decides it (Approved or
// Denied) and the status subresource alone, for signers, adds the
// certificate or a failure.
type csrStrategy struct {
	guard *signerGuard // nil checks no approver or signer
	now   func() time.Time
}

// PrepareForCaller records the caller as the requestor, whatever the
// request said: the signer grants what the CSR's subject asks for, and
// approvers judge it by who asked.
func (csrStrategy) PrepareForCaller(ctx context.Context, obj map[string]any) {
	spec := nestedMap(obj, true, "spec")
	for _, k := range []string{"username", "uid", "groups", "extra"} {
		delete(spec, k)
	}
	u, ok := user.From(ctx)
	if !ok {
		return
	}
	if u.Username != "" {
		spec["username"] = u.Username
	}
	if u.UID != "" {
		spec["uid"] = u.UID
	}
	if len(u.Groups) > 0 {
		groups := make([]any, len(u.Groups))
		for i, g := range u.Groups {
			groups[i] = g
		}
		spec["groups"] = groups
	}
	if len(u.Extra) > 0 {
		extra := make(map[string]any, len(u.Extra))
		for k, vs := range u.Extra {
			values := make([]any, len(vs))
			for i, v := range vs {
				values[i] = v
			}
			extra[k] = values
		}
		spec["extra"] = extra
	}
}

// PrepareForCreate starts the request undecided: no one creates an
// approved request.
func (csrStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	obj["status"] = map[string]any{}
	csr, errs := typedCSR(obj)
	if len(errs) > 0 {
		return errs
	}
	return csrErrors(csr, nil, csrWrite{})
}

// PrepareForUpdate keeps the spec; the store keeps the status. Only
// metadata changes through the object itself.
func (csrStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	return csrUpdateErrors(obj, old, csrWrite{})
}

// PrepareForStatusUpdate keeps the spec and the decision: the Approved
// and Denied conditions stay as stored unless the write adds or removes
// some, which validation then refuses. A signer may add the certificate,
// once, and other conditions (Failed).
func (s csrStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	status, was, err := csrStatuses(obj, old)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("status"), err)}
	}
	keepInstances(status.Conditions, was.Conditions, certificatesv1.CertificateApproved)
	keepInstances(status.Conditions, was.Conditions, certificatesv1.CertificateDenied)
	stampConditions(status.Conditions, was.Conditions, s.now())
	if err := setField(obj, "status", status); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("status"), err)}
	}
	return csrUpdateErrors(obj, old, csrWrite{certificate: true})
}

// PrepareForApprovalUpdate takes the conditions of the write and
// everything else of the status and spec from the stored request.
func (s csrStrategy) PrepareForApprovalUpdate(obj, old map[string]any) field.ErrorList {
	status, was, err := csrStatuses(obj, old)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("status"), err)}
	}
	stampConditions(status.Conditions, was.Conditions, s.now())
	was.Conditions = status.Conditions
	keepSpec(obj, old)
	if err := setField(obj, "status", was); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("status"), err)}
	}
	return csrUpdateErrors(obj, old, csrWrite{decision: true})
}

// ResetFields: the object's own endpoint changes only metadata, status
// writes do not own the conditions and approval writes not the
// certificate, as kube declares them. Since a create then records no
// field, a request has managed fields only once something applies to it.
func (csrStrategy) ResetFields(sub Subresource) [][]string {
	switch sub {
	case SubresourceStatus:
		return [][]string{{"spec"}, {"status", "conditions"}}
	case SubresourceApproval:
		return [][]string{{"spec"}, {"status", "certificate"}}
	}
	return [][]string{{"spec"}, {"status"}}
}

// csrStatuses reads the status of the write and of the stored request.
func csrStatuses(obj, old map[string]any) (status, was *certificatesv1.CertificateSigningRequestStatus, err error) {
	if status, err = fromField[certificatesv1.CertificateSigningRequestStatus](obj, "status"); err != nil {
		return nil, nil, err
	}
	if was, err = fromField[certificatesv1.CertificateSigningRequestStatus](old, "status"); err != nil {
		return nil, nil, err
	}
	return status, was, nil
}

// keepInstances puts back the stored conditions of type t when the write
// has as many of them: only a change in their number is the writer's to
// answer for.
func keepInstances(conds, was []certificatesv1.CertificateSigningRequestCondition, t certificatesv1.RequestConditionType) {
	at, wasAt := conditionIndices(conds, t), conditionIndices(was, t)
	if len(at) != len(wasAt) {
		return
	}
	for i, j := range wasAt {
		conds[at[i]] = was[j]
	}
}

func conditionIndices(conds []certificatesv1.CertificateSigningRequestCondition, t certificatesv1.RequestConditionType) []int {
	var at []int
	for i, c := range conds {
		if c.Type == t {
			at = append(at, i)
		}
	}
	return at
}

// stampConditions fills in the times a writer left out: updated now, and
// changed when a stored condition of the same type and status says so,
// else now.
func stampConditions(conds, was []certificatesv1.CertificateSigningRequestCondition, now time.Time) {
	t := metav1.NewTime(now)
	for i := range conds {
		c := &conds[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = t
		}
		if !c.LastTransitionTime.IsZero() {
			continue
		}
		c.LastTransitionTime = t
		for _, w := range was {
			if w.Type == c.Type && w.Status == c.Status && !w.LastTransitionTime.IsZero() {
				c.LastTransitionTime = w.LastTransitionTime
				break
			}
		}
	}
}

// csrUpdateErrors checks the request an update leaves against the
// stored one.
func csrUpdateErrors(obj, old map[string]any, w csrWrite) field.ErrorList {
	csr, errs := typedCSR(obj)
	if len(errs) > 0 {
		return errs
	}
	was, errs := typedCSR(old)
	if len(errs) > 0 {
		return errs
	}
	return csrErrors(csr, was, w)
}

func typedCSR(obj map[string]any) (*certificatesv1.CertificateSigningRequest, field.ErrorList) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if errs := toTyped(obj, csr); len(errs) > 0 {
		return nil, errs
	}
	return csr, nil
}

// signerNameCell is the request's signer, or kube's "<none>".
func signerNameCell(obj map[string]any) any {
	return orNone(str(nestedMap(obj, false, "spec")["signerName"]))
}

// requestedDuration is the certificate lifetime a request asks for, as
// kubectl prints durations, or "<none>".
func requestedDuration(obj map[string]any) any {
	switch s := nestedMap(obj, false, "spec")["expirationSeconds"].(type) {
	case int64:
		return duration.HumanDuration(time.Duration(s) * time.Second)
	case float64:
		return duration.HumanDuration(time.Duration(s) * time.Second)
	}
	return "<none>"
}

// csrCondition sums a request's state up as kube does: its decision
// (Denied wins over Approved, neither is Pending), then Failed and
// Issued when they apply.
func csrCondition(obj map[string]any) any {
	var approved, denied, failed bool
	conds, _ := nestedMap(obj, false, "status")["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		switch certificatesv1.RequestConditionType(str(m["type"])) {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	var cell string
	switch {
	case denied:
		cell = "Denied"
	case approved:
		cell = "Approved"
	default:
		cell = "Pending"
	}
	if failed {
		cell += ",Failed"
	}
	if str(nestedMap(obj, false, "status")["certificate"]) != "" {
		cell += ",Issued"
	}
	return cell
}
