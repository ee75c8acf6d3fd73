package registry

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// persistentVolumeClaimStrategy holds PersistentVolumeClaims to
// kube-apiserver's rules. A claim's spec is what quota and the volume
// it binds were judged by, so it is fixed once written, but for the
// volume name (set once, by the binder) and, on a bound claim, the
// storage request (a resize).
//
// A new claim gets the kubernetes.io/pvc-protection finalizer, as kube's
// StorageObjectInUseProtection admission gives it; the pvc-protection
// controller removes it once no pod uses the claim. Not served: the
// default storage class (no StorageClasses are served) and the status
// rules of volume resizing and modification.
type persistentVolumeClaimStrategy struct{}

// claimProtectionFinalizer keeps a claim while a pod uses it.
const claimProtectionFinalizer = "kubernetes.io/pvc-protection"

func (persistentVolumeClaimStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var c corev1.PersistentVolumeClaim
	if errs := toTyped(obj, &c); len(errs) > 0 {
		return errs
	}
	dropClaimGated(&c.Spec, nil)
	normalizeDataSources(&c.Spec)
	defaultClaimSpec(&c.Spec)
	if !slices.Contains(c.Finalizers, claimProtectionFinalizer) {
		c.Finalizers = append(c.Finalizers, claimProtectionFinalizer)
	}
	// kube empties the status; reads default its phase.
	c.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	if errs := claimSpecErrors(&c.Spec, field.NewPath("spec")); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &c)
}

func (persistentVolumeClaimStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var c, prev corev1.PersistentVolumeClaim
	if errs := append(toTyped(obj, &c), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	c.Status = prev.Status
	dropClaimGated(&c.Spec, &prev.Spec)
	normalizeDataSources(&c.Spec)
	normalizeDataSources(&prev.Spec)
	defaultClaimSpec(&c.Spec)
	errs := claimSpecErrors(&c.Spec, field.NewPath("spec"))
	errs = append(errs, claimUpdateErrors(&c, &prev)...)
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &c)
}

// PrepareForStatusUpdate keeps the spec, as kube's status strategy
// does, and defaults an empty phase to Pending as its decoding does.
func (persistentVolumeClaimStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	st := nestedMap(obj, true, "status")
	if p, _ := st["phase"].(string); p == "" {
		st["phase"] = string(corev1.ClaimPending)
	}
	return nil
}

// defaultClaimSpec is kube's SetDefaults_PersistentVolumeClaimSpec.
func defaultClaimSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		s.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
}

// dropClaimGated clears what v1.33's default gates leave off: the
// volume attributes class (VolumeAttributesClass, beta and off) and a
// cross-namespace data source (CrossNamespaceVolumeDataSource, alpha),
// unless the stored claim already uses them.
func dropClaimGated(s, old *corev1.PersistentVolumeClaimSpec) {
	if old == nil || old.VolumeAttributesClassName == nil {
		s.VolumeAttributesClassName = nil
	}
	if r := s.DataSourceRef; r != nil && r.Namespace != nil && *r.Namespace != "" && (old == nil || old.DataSourceRef == nil) {
		s.DataSourceRef = nil
	}
}

// normalizeDataSources fills dataSource from dataSourceRef, or the
// reverse, when only one is given, as kube does for older clients.
func normalizeDataSources(s *corev1.PersistentVolumeClaimSpec) {
	switch {
	case s.DataSource != nil && s.DataSourceRef == nil:
		s.DataSourceRef = &corev1.TypedObjectReference{APIGroup: s.DataSource.APIGroup, Kind: s.DataSource.Kind, Name: s.DataSource.Name}
	case s.DataSourceRef != nil && s.DataSource == nil && (s.DataSourceRef.Namespace == nil || *s.DataSourceRef.Namespace == ""):
		s.DataSource = &corev1.TypedLocalObjectReference{APIGroup: s.DataSourceRef.APIGroup, Kind: s.DataSourceRef.Kind, Name: s.DataSourceRef.Name}
	}
}

// dataSourceErrors is the data source part of kube's
// ValidatePersistentVolumeClaimSpec.
func dataSourceErrors(s *corev1.PersistentVolumeClaimSpec, sp *field.Path) field.ErrorList {
	var errs field.ErrorList
	ref := func(p *field.Path, group *string, kind, name string) {
		if name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if kind == "" {
			errs = append(errs, field.Required(p.Child("kind"), ""))
		}
		g := ptr.Deref(group, "")
		if g == "" && kind != "PersistentVolumeClaim" {
			errs = append(errs, field.Invalid(p, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
		}
		for _, msg := range validation.IsDNS1123Subdomain(g) {
			if g != "" {
				errs = append(errs, field.Invalid(p.Child("apiGroup"), g, msg))
			}
		}
	}
	if d := s.DataSource; d != nil {
		ref(sp.Child("dataSource"), d.APIGroup, d.Kind, d.Name)
	}
	if d := s.DataSourceRef; d != nil {
		ref(sp.Child("dataSourceRef"), d.APIGroup, d.Kind, d.Name)
		if ns := ptr.Deref(d.Namespace, ""); ns != "" {
			for _, msg := range validation.IsDNS1123Label(ns) {
				errs = append(errs, field.Invalid(sp.Child("dataSourceRef", "namespace"), ns, msg))
			}
		}
	}
	switch d, r := s.DataSource, s.DataSourceRef; {
	case r != nil && ptr.Deref(r.Namespace, "") != "":
		if d != nil {
			errs = append(errs, field.Invalid(sp, sp.Child("dataSource"), "may not be specified when dataSourceRef.namespace is specified"))
		}
	case d != nil && r != nil:
		if !reflect.DeepEqual(d.APIGroup, r.APIGroup) || d.Kind != r.Kind || d.Name != r.Name {
			errs = append(errs, field.Invalid(sp, sp.Child("dataSource"), "must match dataSourceRef"))
		}
	}
	return errs
}

// claimUpdateErrors is the update part of kube's
// ValidatePersistentVolumeClaimUpdate: the spec may change only in its
// volume name, once, in a storage class given where the beta
// annotation or nothing named one, and, on a bound claim, in its
// storage request, which may shrink only down to above the capacity
// (RecoverVolumeExpansionFailure is on in v1.33).
func claimUpdateErrors(c, old *corev1.PersistentVolumeClaim) field.ErrorList {
	var errs field.ErrorList
	next, prev := c.Spec.DeepCopy(), old.Spec.DeepCopy()
	if old.Spec.VolumeName == "" {
		prev.VolumeName = next.VolumeName
	}
	const betaClass = corev1.BetaStorageClassAnnotation
	oldAnn, oldHasAnn := old.Annotations[betaClass]
	newAnn, newHasAnn := c.Annotations[betaClass]
	switch {
	case oldHasAnn && old.Spec.StorageClassName == nil && c.Spec.StorageClassName != nil && *c.Spec.StorageClassName == oldAnn &&
		(!newHasAnn || newAnn == oldAnn):
		next.StorageClassName = nil
	default:
		if newAnn != oldAnn {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations", betaClass), "field is immutable"))
		}
		if c.Spec.StorageClassName != nil && old.Spec.StorageClassName == nil && (!oldHasAnn || *c.Spec.StorageClassName == oldAnn) {
			next.StorageClassName = prev.StorageClassName
		}
	}
	bound := c.Status.Phase == corev1.ClaimBound
	if bound && next.Resources.Requests != nil {
		next.Resources.Requests[corev1.ResourceStorage] = old.Spec.Resources.Requests[corev1.ResourceStorage]
	}
	if bound && next.VolumeAttributesClassName != nil {
		next.VolumeAttributesClassName = prev.VolumeAttributesClassName
	}
	if !equality.Semantic.DeepEqual(next, prev) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"),
			"spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+specDiff(prev, next)))
	}
	newSize, oldSize := c.Spec.Resources.Requests[corev1.ResourceStorage], old.Spec.Resources.Requests[corev1.ResourceStorage]
	capacity := old.Status.Capacity[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) < 0 && newSize.Cmp(capacity) <= 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
	}
	if !equality.Semantic.DeepEqual(c.Spec.VolumeMode, old.Spec.VolumeMode) {
		errs = append(errs, field.Invalid(field.NewPath("volumeMode"), c.Spec.VolumeMode, "field is immutable"))
	}
	if !equality.Semantic.DeepEqual(c.Spec.VolumeAttributesClassName, old.Spec.VolumeAttributesClassName) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "volumeAttributesClassName"), "update is forbidden when the VolumeAttributesClass feature gate is disabled"))
	}
	return errs
}

// specDiff names the top-level spec fields that differ. kube appends a
// go-cmp diff, whose layout go-cmp deliberately varies; clients see the
// sentence before it.
func specDiff(old, cur *corev1.PersistentVolumeClaimSpec) string {
	a, b := reflect.ValueOf(*old), reflect.ValueOf(*cur)
	out := ""
	for i := range a.NumField() {
		if !equality.Semantic.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			out += fmt.Sprintf("  %s: %v -> %v\n", a.Type().Field(i).Name, show(a.Field(i)), show(b.Field(i)))
		}
	}
	return out
}

func show(v reflect.Value) any {
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		return v.Elem().Interface()
	}
	return v.Interface()
}

// claimColumns are kube's PersistentVolumeClaim columns: the capacity
// and access modes shown are the bound volume's, from the status, once
// a volume is named.
func claimColumns() []Column {
	spec, status := corev1.PersistentVolumeClaimSpec{}.SwaggerDoc(), corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
	claim := func(fn func(c *corev1.PersistentVolumeClaim) string) func(map[string]any) any {
		return func(obj map[string]any) any {
			var c corev1.PersistentVolumeClaim
			if errs := toTyped(obj, &c); len(errs) > 0 {
				return ""
			}
			return fn(&c)
		}
	}
	return []Column{
		{Name: "Status", Type: "string", Description: status["phase"], Value: claim(func(c *corev1.PersistentVolumeClaim) string {
			if c.DeletionTimestamp != nil {
				return "Terminating"
			}
			return string(c.Status.Phase)
		})},
		{Name: "Volume", Type: "string", Description: spec["volumeName"], Path: ".spec.volumeName"},
		{Name: "Capacity", Type: "string", Description: status["capacity"], Value: claim(func(c *corev1.PersistentVolumeClaim) string {
			if c.Spec.VolumeName == "" {
				return ""
			}
			q := c.Status.Capacity[corev1.ResourceStorage]
			return q.String()
		})},
		{Name: "Access Modes", Type: "string", Description: status["accessModes"], Value: claim(func(c *corev1.PersistentVolumeClaim) string {
			if c.Spec.VolumeName == "" {
				return ""
			}
			return accessModesShort(c.Status.AccessModes)
		})},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc", Value: claim(func(c *corev1.PersistentVolumeClaim) string {
			if class, ok := c.Annotations[corev1.BetaStorageClassAnnotation]; ok {
				return class
			}
			return ptr.Deref(c.Spec.StorageClassName, "")
		})},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc", Value: claim(func(c *corev1.PersistentVolumeClaim) string {
			return ptr.Deref(c.Spec.VolumeAttributesClassName, "<unset>")
		})},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"], Path: ".metadata.creationTimestamp"},
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: spec["volumeMode"], Value: claim(func(c *corev1.PersistentVolumeClaim) string {
			if c.Spec.VolumeMode == nil {
				return "<unset>"
			}
			return string(*c.Spec.VolumeMode)
		})},
	}
}

// accessModesShort prints access modes as kube does: RWO, ROX, RWX,
// RWOP, in that order, each once.
func accessModesShort(modes []corev1.PersistentVolumeAccessMode) string {
	out := ""
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		for _, have := range modes {
			if have == m.mode {
				if out != "" {
					out += ","
				}
				out += m.short
				break
			}
		}
	}
	return out
}
