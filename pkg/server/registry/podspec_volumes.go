package registry

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fileModeMsg is kube's message for a file mode outside 0-0777.
const fileModeMsg = "must be a number between 0 and 0777 (octal), both inclusive"

// volumeErrors is kube's ValidateVolumes: each volume has one valid
// source and a unique DNS-1123 label for a name. It also returns the
// names of the volumes without errors, the only ones a mount may name,
// as kube does. pod is the Pod the volumes belong to, nil for a
// template's.
func volumeErrors(vols []corev1.Volume, pod *podOfSpec, path *field.Path) (sets.Set[string], field.ErrorList) {
	var errs field.ErrorList
	valid := sets.New[string]()
	// The claims the pod's ephemeral volumes will create, by name.
	created := sets.New[string]()
	if pod != nil && pod.name != "" {
		for _, v := range vols {
			if v.Ephemeral != nil {
				created.Insert(pod.name + "-" + v.Name)
			}
		}
	}
	for i, v := range vols {
		p := path.Index(i)
		np := p.Child("name")
		el := volumeSourceErrors(&v, pod, p)
		if v.Name == "" {
			el = append(el, field.Required(np, ""))
		} else {
			for _, msg := range validation.IsDNS1123Label(v.Name) {
				el = append(el, field.Invalid(np, v.Name, msg))
			}
		}
		if valid.Has(v.Name) {
			el = append(el, field.Duplicate(np, v.Name))
		}
		if len(el) == 0 {
			valid.Insert(v.Name)
		}
		errs = append(errs, el...)
		if c := v.PersistentVolumeClaim; c != nil && created.Has(c.ClaimName) {
			errs = append(errs, field.Invalid(p.Child("persistentVolumeClaim", "claimName"), c.ClaimName,
				"must not reference a PVC that gets created for an ephemeral volume"))
		}
	}
	return valid, errs
}

// volumeSource is one member of a VolumeSource: its JSON name, whether
// it is set, and the rules of its own fields (nil for none ported).
type volumeSource struct {
	name  string
	set   bool
	rules func(*field.Path) field.ErrorList
}

// volumeSourceErrors is kube's validateVolumeSource: exactly one source,
// checked by its own rules. kube checks the sources in this order and
// reports each one after the first as forbidden, under the name it
// gives it (downwardAPI keeps kube's misspelling).
func volumeSourceErrors(v *corev1.Volume, pod *podOfSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, src := range volumeSources(v, pod, p) {
		if !src.set {
			continue
		}
		sp := p.Child(src.name)
		if n > 0 {
			errs = append(errs, field.Forbidden(sp, "may not specify more than 1 volume type"))
			continue
		}
		n++
		if src.rules != nil {
			errs = append(errs, src.rules(sp)...)
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a volume type"))
	}
	return errs
}

// volumeSources lists the members of a volume's source in the order
// kube checks them; p is the volume's path, pod the Pod it belongs to
// (nil for a template's), for the rules kube applies to Pods only.
func volumeSources(v *corev1.Volume, pod *podOfSpec, p *field.Path) []volumeSource {
	s := &v.VolumeSource
	return []volumeSource{
		{"emptyDir", s.EmptyDir != nil, func(p *field.Path) field.ErrorList { return emptyDirErrors(s.EmptyDir, p) }},
		{"hostPath", s.HostPath != nil, func(p *field.Path) field.ErrorList { return hostPathErrors(s.HostPath, p) }},
		{"gitRepo", s.GitRepo != nil, nil},
		{"gcePersistentDisk", s.GCEPersistentDisk != nil, nil},
		{"awsElasticBlockStore", s.AWSElasticBlockStore != nil, nil},
		{"secret", s.Secret != nil, func(p *field.Path) field.ErrorList { return secretVolumeErrors(s.Secret, p) }},
		{"nfs", s.NFS != nil, nil},
		{"iscsi", s.ISCSI != nil, nil},
		{"glusterfs", s.Glusterfs != nil, nil},
		{"flocker", s.Flocker != nil, nil},
		{"persistentVolumeClaim", s.PersistentVolumeClaim != nil, func(p *field.Path) field.ErrorList {
			if s.PersistentVolumeClaim.ClaimName == "" {
				return field.ErrorList{field.Required(p.Child("claimName"), "")}
			}
			return nil
		}},
		{"rbd", s.RBD != nil, nil},
		{"cinder", s.Cinder != nil, nil},
		{"cephFS", s.CephFS != nil, nil},
		{"quobyte", s.Quobyte != nil, nil},
		{"downwarAPI", s.DownwardAPI != nil, func(*field.Path) field.ErrorList {
			return downwardAPIVolumeErrors(s.DownwardAPI, p.Child("downwardAPI"))
		}},
		{"fc", s.FC != nil, nil},
		{"flexVolume", s.FlexVolume != nil, nil},
		{"configMap", s.ConfigMap != nil, func(p *field.Path) field.ErrorList { return configMapVolumeErrors(s.ConfigMap, p) }},
		{"azureFile", s.AzureFile != nil, nil},
		{"vsphereVolume", s.VsphereVolume != nil, nil},
		{"photonPersistentDisk", s.PhotonPersistentDisk != nil, nil},
		{"portworxVolume", s.PortworxVolume != nil, nil},
		{"azureDisk", s.AzureDisk != nil, nil},
		{"storageos", s.StorageOS != nil, nil},
		{"projected", s.Projected != nil, func(p *field.Path) field.ErrorList { return projectedErrors(s.Projected, p) }},
		{"scaleIO", s.ScaleIO != nil, nil},
		{"csi", s.CSI != nil, nil},
		{"ephemeral", s.Ephemeral != nil, func(sp *field.Path) field.ErrorList {
			errs := ephemeralVolumeErrors(s.Ephemeral, sp)
			// The claim is named after the pod and the volume; kube
			// reports a bad name on the volume's name.
			if pod != nil && pod.name != "" && v.Name != "" {
				claim := pod.name + "-" + v.Name
				for _, msg := range validation.IsDNS1123Subdomain(claim) {
					errs = append(errs, field.Invalid(p.Child("name"), v.Name, fmt.Sprintf("PVC name %q: %v", claim, msg)))
				}
			}
			return errs
		}},
		// Image volumes are dropped before validation (dropGatedFields).
		{"image", s.Image != nil, nil},
	}
}

func emptyDirErrors(e *corev1.EmptyDirVolumeSource, p *field.Path) field.ErrorList {
	if e.SizeLimit != nil && e.SizeLimit.Sign() < 0 {
		return field.ErrorList{field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity")}
	}
	return nil
}

// hostPathTypes are the hostPath types kube knows, sorted as it lists
// them.
var hostPathTypes = []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}

func hostPathErrors(h *corev1.HostPathVolumeSource, p *field.Path) field.ErrorList {
	if h.Path == "" {
		return field.ErrorList{field.Required(p.Child("path"), "")}
	}
	errs := noBackstepsErrors(h.Path, p.Child("path"))
	if h.Type != nil && !sets.New(hostPathTypes...).Has(string(*h.Type)) {
		errs = append(errs, field.NotSupported(p.Child("type"), h.Type, hostPathTypes))
	}
	return errs
}

func secretVolumeErrors(s *corev1.SecretVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.SecretName == "" {
		errs = append(errs, field.Required(p.Child("secretName"), ""))
	}
	errs = append(errs, fileModeErrors(s.DefaultMode, p.Child("defaultMode"))...)
	for i := range s.Items {
		errs = append(errs, keyToPathErrors(&s.Items[i], p.Child("items").Index(i))...)
	}
	return errs
}

func configMapVolumeErrors(c *corev1.ConfigMapVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	errs = append(errs, fileModeErrors(c.DefaultMode, p.Child("defaultMode"))...)
	for i := range c.Items {
		errs = append(errs, keyToPathErrors(&c.Items[i], p.Child("items").Index(i))...)
	}
	return errs
}

func fileModeErrors(mode *int32, p *field.Path) field.ErrorList {
	if mode != nil && (*mode < 0 || *mode > 0777) {
		return field.ErrorList{field.Invalid(p, *mode, fileModeMsg)}
	}
	return nil
}

// keyToPathErrors is kube's validateKeyToPath: a key, and a relative
// path inside the volume.
func keyToPathErrors(kp *corev1.KeyToPath, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kp.Key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	}
	if kp.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, localNonReservedPathErrors(kp.Path, p.Child("path"))...)
	return append(errs, fileModeErrors(kp.Mode, p.Child("mode"))...)
}

// downwardAPIVolumeErrors is kube's validateDownwardAPIVolumeSource.
// kube reports each item's errors under the source's path, without
// the item's index, and so does this.
func downwardAPIVolumeErrors(d *corev1.DownwardAPIVolumeSource, p *field.Path) field.ErrorList {
	errs := fileModeErrors(d.DefaultMode, p.Child("defaultMode"))
	for i := range d.Items {
		errs = append(errs, downwardAPIFileErrors(&d.Items[i], p)...)
	}
	return errs
}

// volumeFieldPaths are the pod fields a downward API volume may show.
var volumeFieldPaths = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}

// resourceFieldPaths are the container resources a downward API file
// may show; hugepages-* are allowed by prefix.
var resourceFieldPaths = []string{"limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"}

func downwardAPIFileErrors(f *corev1.DownwardAPIVolumeFile, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if f.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, localNonReservedPathErrors(f.Path, p.Child("path"))...)
	switch {
	case f.FieldRef != nil:
		errs = append(errs, volumeFieldRefErrors(f.FieldRef, p.Child("fieldRef"))...)
		if f.ResourceFieldRef != nil {
			errs = append(errs, field.Invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case f.ResourceFieldRef != nil:
		rp := p.Child("resourceFieldRef")
		r := f.ResourceFieldRef
		switch {
		case r.ContainerName == "":
			errs = append(errs, field.Required(rp.Child("containerName"), ""))
		case r.Resource == "":
			errs = append(errs, field.Required(rp.Child("resource"), ""))
		case !sets.New(resourceFieldPaths...).Has(r.Resource) &&
			!strings.HasPrefix(r.Resource, "limits.hugepages-") && !strings.HasPrefix(r.Resource, "requests.hugepages-"):
			errs = append(errs, field.NotSupported(rp.Child("resource"), r.Resource, resourceFieldPaths))
		}
	default:
		errs = append(errs, field.Required(p, "one of fieldRef and resourceFieldRef is required"))
	}
	return append(errs, fileModeErrors(f.Mode, p.Child("mode"))...)
}

// volumeFieldRefErrors is kube's validateObjectFieldSelector for a
// downward API volume: v1 field paths, labels and annotations by key.
func volumeFieldRefErrors(fs *corev1.ObjectFieldSelector, p *field.Path) field.ErrorList {
	if fs.APIVersion == "" {
		return field.ErrorList{field.Required(p.Child("apiVersion"), "")}
	}
	if fs.FieldPath == "" {
		return field.ErrorList{field.Required(p.Child("fieldPath"), "")}
	}
	if fs.APIVersion != "v1" {
		return field.ErrorList{field.Invalid(p.Child("fieldPath"), fs.FieldPath,
			"error converting fieldPath: unsupported pod version: "+fs.APIVersion)}
	}
	base, key, subscripted := splitSubscript(fs.FieldPath)
	if subscripted {
		switch base {
		case "metadata.annotations":
			return labelNameErrors(strings.ToLower(key), p)
		case "metadata.labels":
			return labelNameErrors(key, p)
		}
		return field.ErrorList{field.Invalid(p.Child("fieldPath"), fs.FieldPath,
			"error converting fieldPath: field label does not support subscript: "+fs.FieldPath)}
	}
	fp := fs.FieldPath
	switch {
	case fp == "spec.host":
		// Old clients' name for spec.nodeName.
		fp = "spec.nodeName"
	case !podFieldLabels.Has(fp):
		return field.ErrorList{field.Invalid(p.Child("fieldPath"), fs.FieldPath, "error converting fieldPath: field label not supported: "+fp)}
	}
	if !sets.New(volumeFieldPaths...).Has(fp) {
		return field.ErrorList{field.NotSupported(p.Child("fieldPath"), fp, volumeFieldPaths)}
	}
	return nil
}

// podFieldLabels are the pod fields the downward API knows at all.
var podFieldLabels = sets.New("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
	"spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
	"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")

// splitSubscript splits "metadata.labels['key']" into the path and the
// key.
func splitSubscript(fp string) (base, key string, ok bool) {
	if !strings.HasSuffix(fp, "']") {
		return fp, "", false
	}
	base, key, ok = strings.Cut(strings.TrimSuffix(fp, "']"), "['")
	if !ok || base == "" {
		return fp, "", false
	}
	return base, key, true
}

// projectedErrors is kube's validateProjectedVolumeSource: one source
// per entry, and no two files at the same path.
func projectedErrors(pr *corev1.ProjectedVolumeSource, p *field.Path) field.ErrorList {
	errs := fileModeErrors(pr.DefaultMode, p.Child("defaultMode"))
	paths := sets.New[string]()
	// A repeated path is reported on the volume, naming the source.
	claim := func(file, name string) {
		if file == "" {
			return
		}
		if paths.Has(file) {
			errs = append(errs, field.Invalid(p, name, "conflicting duplicate paths"))
		}
		paths.Insert(file)
	}
	for i, s := range pr.Sources {
		n := 0
		sp := p.Child("sources").Index(i)
		if s.Secret != nil {
			n++
			if s.Secret.Name == "" {
				errs = append(errs, field.Required(sp.Child("secret", "name"), ""))
			}
			for j := range s.Secret.Items {
				errs = append(errs, keyToPathErrors(&s.Secret.Items[j], sp.Child("secret", "items").Index(j))...)
				claim(s.Secret.Items[j].Path, s.Secret.Name)
			}
		}
		if s.ConfigMap != nil {
			n++
			if s.ConfigMap.Name == "" {
				errs = append(errs, field.Required(sp.Child("configMap", "name"), ""))
			}
			for j := range s.ConfigMap.Items {
				errs = append(errs, keyToPathErrors(&s.ConfigMap.Items[j], sp.Child("configMap", "items").Index(j))...)
				claim(s.ConfigMap.Items[j].Path, s.ConfigMap.Name)
			}
		}
		if s.DownwardAPI != nil {
			n++
			for j := range s.DownwardAPI.Items {
				f := &s.DownwardAPI.Items[j]
				errs = append(errs, downwardAPIFileErrors(f, sp.Child("downwardAPI"))...)
				claim(f.Path, f.Path)
			}
		}
		if t := s.ServiceAccountToken; t != nil {
			n++
			tp := sp.Child("serviceAccountToken")
			secs := int64(0)
			if t.ExpirationSeconds != nil {
				secs = *t.ExpirationSeconds
			}
			if secs < 10*60 {
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), secs, "may not specify a duration less than 10 minutes"))
			}
			if secs > 1<<32 {
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), secs, "may not specify a duration larger than 2^32 seconds"))
			}
			// kube reports the token's path on the volume's path.
			if t.Path == "" {
				errs = append(errs, field.Required(p.Child("path"), ""))
			} else {
				errs = append(errs, localNonReservedPathErrors(t.Path, p.Child("path"))...)
			}
		}
		if n > 1 {
			errs = append(errs, field.Forbidden(sp, "may not specify more than 1 volume type per source"))
		}
	}
	return errs
}

// accessModes and volumeModes are what a claim may ask for, sorted as
// kube lists them.
var (
	accessModes = []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}
	volumeModes = []string{"Block", "Filesystem"}
)

// ephemeralVolumeErrors is kube's validateEphemeralVolumeSource: a
// claim template with labels and annotations only, and a claim spec
// asking for access modes and storage.
func ephemeralVolumeErrors(e *corev1.EphemeralVolumeSource, p *field.Path) field.ErrorList {
	tp := p.Child("volumeClaimTemplate")
	if e.VolumeClaimTemplate == nil {
		return field.ErrorList{field.Required(tp, "")}
	}
	t := e.VolumeClaimTemplate
	errs := apivalidation.ValidateAnnotations(t.Annotations, tp.Child("metadata", "annotations"))
	errs = append(errs, metavalidation.ValidateLabels(t.Labels, tp.Child("metadata", "labels"))...)
	return append(errs, claimSpecErrors(&t.Spec, tp.Child("spec"))...)
}

// claimSpecErrors is kube's ValidatePersistentVolumeClaimSpec, for
// claims and the claim templates of ephemeral volumes: access modes and
// a positive storage request are required.
func claimSpecErrors(s *corev1.PersistentVolumeClaimSpec, sp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(sp.Child("accessModes"), "at least 1 access mode is required"))
	}
	if s.Selector != nil {
		errs = append(errs, metavalidation.ValidateLabelSelector(s.Selector, metavalidation.LabelSelectorValidationOptions{}, sp.Child("selector"))...)
	}
	once, other := false, false
	for _, m := range s.AccessModes {
		switch {
		case !sets.New(accessModes...).Has(string(m)):
			errs = append(errs, field.NotSupported(sp.Child("accessModes"), m, accessModes))
		case m == corev1.ReadWriteOncePod:
			once = true
		default:
			other = true
		}
	}
	if once && other {
		errs = append(errs, field.Forbidden(sp.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	// kube keys the storage request on resources, not resources.requests.
	rp := sp.Child("resources").Key(string(corev1.ResourceStorage))
	switch q, ok := s.Resources.Requests[corev1.ResourceStorage]; {
	case !ok:
		errs = append(errs, field.Required(rp, ""))
	case q.Cmp(resource.Quantity{}) <= 0:
		errs = append(errs, field.Invalid(rp, q.String(), "must be greater than zero"))
	}
	if c := s.StorageClassName; c != nil && *c != "" {
		for _, msg := range validation.IsDNS1123Subdomain(*c) {
			errs = append(errs, field.Invalid(sp.Child("storageClassName"), *c, msg))
		}
	}
	if m := s.VolumeMode; m != nil && !sets.New(volumeModes...).Has(string(*m)) {
		errs = append(errs, field.NotSupported(sp.Child("volumeMode"), *m, volumeModes))
	}
	errs = append(errs, dataSourceErrors(s, sp)...)
	return errs
}

// localDescendingPathErrors is kube's validateLocalDescendingPath: a
// relative path that never steps up.
func localDescendingPathErrors(target string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if path.IsAbs(target) {
		errs = append(errs, field.Invalid(p, target, "must be a relative path"))
	}
	return append(errs, noBackstepsErrors(target, p)...)
}

func noBackstepsErrors(target string, p *field.Path) field.ErrorList {
	for _, part := range strings.Split(filepath.ToSlash(target), "/") {
		if part == ".." {
			return field.ErrorList{field.Invalid(p, target, "must not contain '..'")}
		}
	}
	return nil
}

// localNonReservedPathErrors is kube's ValidateLocalNonReservedPath:
// also no leading "..", which kube reserves for its atomic writer.
func localNonReservedPathErrors(target string, p *field.Path) field.ErrorList {
	errs := localDescendingPathErrors(target, p)
	if strings.HasPrefix(target, "..") && !strings.HasPrefix(target, "../") {
		errs = append(errs, field.Invalid(p, target, "must not start with '..'"))
	}
	return errs
}

// mountErrors is kube's ValidateVolumeMounts: a mount names a valid
// volume of the pod, at a path no other mount uses, with a relative
// subPath, and a propagation only privileged containers may make
// Bidirectional. kube reports subPath errors without the mount's index.
func mountErrors(c *corev1.Container, vols sets.Set[string], path *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := sets.New[string]()
	devices := map[string]string{}
	for _, d := range c.VolumeDevices {
		devices[d.Name] = d.DevicePath
	}
	for i, m := range c.VolumeMounts {
		p := path.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if !vols.Has(m.Name) {
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		}
		if paths.Has(m.MountPath) {
			errs = append(errs, field.Invalid(p.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths.Insert(m.MountPath)
		if _, ok := devices[m.Name]; ok {
			errs = append(errs, field.Invalid(p.Child("name"), m.Name, "must not already exist in volumeDevices"))
		}
		for _, dp := range devices {
			if dp == m.MountPath {
				errs = append(errs, field.Invalid(p.Child("mountPath"), m.MountPath, "must not already exist as a path in volumeDevices"))
				break
			}
		}
		if m.SubPath != "" {
			errs = append(errs, localDescendingPathErrors(m.SubPath, path.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, field.Invalid(p.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, localDescendingPathErrors(m.SubPathExpr, path.Child("subPathExpr"))...)
		}
		if m.MountPropagation != nil {
			errs = append(errs, propagationErrors(*m.MountPropagation, c, path.Child("mountPropagation"))...)
		}
		errs = append(errs, recursiveReadOnlyErrors(&m, path.Child("recursiveReadOnly"))...)
	}
	return errs
}

var propagationModes = []string{"Bidirectional", "HostToContainer", "None"}

func propagationErrors(mode corev1.MountPropagationMode, c *corev1.Container, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !sets.New(propagationModes...).Has(string(mode)) {
		errs = append(errs, field.NotSupported(p, mode, propagationModes))
	}
	privileged := c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
	if mode == corev1.MountPropagationBidirectional && !privileged {
		errs = append(errs, field.Forbidden(p, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return errs
}

var recursiveReadOnlyModes = []string{"Disabled", "Enabled", "IfPossible"}

func recursiveReadOnlyErrors(m *corev1.VolumeMount, p *field.Path) field.ErrorList {
	if m.RecursiveReadOnly == nil {
		return nil
	}
	switch *m.RecursiveReadOnly {
	case corev1.RecursiveReadOnlyDisabled:
		return nil
	case corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible:
		var errs field.ErrorList
		if !m.ReadOnly {
			errs = append(errs, field.Forbidden(p, "may only be specified when readOnly is true"))
		}
		if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
			errs = append(errs, field.Forbidden(p, "may only be specified when mountPropagation is None or not specified"))
		}
		return errs
	}
	return field.ErrorList{field.NotSupported(p, *m.RecursiveReadOnly, recursiveReadOnlyModes)}
}
