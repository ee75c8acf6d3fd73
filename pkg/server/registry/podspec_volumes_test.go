package registry

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// podCase is a change to basicPod and the errors kube-apiserver v1.33
// answers its create with, as "type path: detail".
type podCase struct {
	name   string
	mutate func(*corev1.Pod)
	want   []string
}

func runPodCases(t *testing.T, cases []podCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			pod := basicPod()
			tt.mutate(pod)
			_, errs := createPod(t, pod)
			if got := describeErrors(errs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// withVolume gives the pod one volume, mounted by its container at /v.
func withVolume(src corev1.VolumeSource) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: src}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "v", MountPath: "/v"}}
	}
}

func fieldRef(path string) *corev1.ObjectFieldSelector {
	return &corev1.ObjectFieldSelector{FieldPath: path}
}

var volumeCases = []podCase{
	{"every common source, valid", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log", Type: ptr.To(corev1.HostPathDirectory)}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: ptr.To(int32(0400)),
				Items: []corev1.KeyToPath{{Key: "k", Path: "dir/k", Mode: ptr.To(int32(0777))}}}}},
			{Name: "d", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"},
				Items: []corev1.KeyToPath{{Key: "k", Path: "k"}}}}},
			{Name: "e", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
			{Name: "f", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "labels", FieldRef: fieldRef("metadata.labels")},
				{Path: "team", FieldRef: fieldRef("metadata.annotations['team']")},
				{Path: "cpu", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.cpu"}},
			}}}},
			{Name: "g", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: fieldRef("metadata.namespace")}}}},
			}}}},
			{Name: "h", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}}},
			}}}},
		}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
			{Name: "a", MountPath: "/a", SubPath: "x/y"}, {Name: "b", MountPath: "/b", SubPathExpr: "$(POD)"},
			{Name: "c", MountPath: "/c", ReadOnly: true, RecursiveReadOnly: ptr.To(corev1.RecursiveReadOnlyEnabled)},
			{Name: "h", MountPath: "/h", MountPropagation: ptr.To(corev1.MountPropagationHostToContainer)},
		}
	}, nil},
	{"two sources", withVolume(corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{},
		HostPath: &corev1.HostPathVolumeSource{Path: "/x"}, Secret: &corev1.SecretVolumeSource{}}), []string{
		"Forbidden spec.volumes[0].hostPath: may not specify more than 1 volume type",
		"Forbidden spec.volumes[0].secret: may not specify more than 1 volume type",
		// kube does not count a volume with errors, so mounts of it fail.
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"downwardAPI after another source keeps kube's spelling", withVolume(corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: "s"}, DownwardAPI: &corev1.DownwardAPIVolumeSource{}}), []string{
		"Forbidden spec.volumes[0].downwarAPI: may not specify more than 1 volume type",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"negative emptyDir size", withVolume(corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("-1"))}}), []string{
		"Forbidden spec.volumes[0].emptyDir.sizeLimit: SizeLimit field must be a valid resource quantity",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"hostPath without path", withVolume(corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{}}), []string{
		"Required value spec.volumes[0].hostPath.path: ",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"hostPath type and backsteps", withVolume(corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/a/../etc", Type: ptr.To(corev1.HostPathType("Dir"))}}), []string{
		"Invalid value spec.volumes[0].hostPath.path: must not contain '..'",
		`Unsupported value spec.volumes[0].hostPath.type: supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"secret without name, bad modes and items", withVolume(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{DefaultMode: ptr.To(int32(01000)),
		Items: []corev1.KeyToPath{{}, {Key: "k", Path: "/abs", Mode: ptr.To(int32(-1))}, {Key: "k", Path: "..data"}, {Key: "k", Path: "a/../../b"}}}}), []string{
		"Required value spec.volumes[0].secret.secretName: ",
		"Invalid value spec.volumes[0].secret.defaultMode: must be a number between 0 and 0777 (octal), both inclusive",
		"Required value spec.volumes[0].secret.items[0].key: ",
		"Required value spec.volumes[0].secret.items[0].path: ",
		"Invalid value spec.volumes[0].secret.items[1].path: must be a relative path",
		"Invalid value spec.volumes[0].secret.items[1].mode: must be a number between 0 and 0777 (octal), both inclusive",
		"Invalid value spec.volumes[0].secret.items[2].path: must not start with '..'",
		"Invalid value spec.volumes[0].secret.items[3].path: must not contain '..'",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"configMap without name", withVolume(corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{Items: []corev1.KeyToPath{{Key: "k"}}}}), []string{
		"Required value spec.volumes[0].configMap.name: ",
		"Required value spec.volumes[0].configMap.items[0].path: ",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"claim without name", withVolume(corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{}}), []string{
		"Required value spec.volumes[0].persistentVolumeClaim.claimName: ",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"downwardAPI items", withVolume(corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
		{Path: "a"},
		{Path: "b", FieldRef: fieldRef("spec.nodeName")},
		{Path: "c", FieldRef: fieldRef("status.bogus")},
		{Path: "d", FieldRef: fieldRef("metadata.name"), ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}},
		{Path: "e", ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}},
		{Path: "f", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.gpu"}},
	}}}), []string{
		// kube reports items on the source, without their index.
		"Required value spec.volumes[0].downwardAPI: one of fieldRef and resourceFieldRef is required",
		`Unsupported value spec.volumes[0].downwardAPI.fieldRef.fieldPath: supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"`,
		"Invalid value spec.volumes[0].downwardAPI.fieldRef.fieldPath: error converting fieldPath: field label not supported: status.bogus",
		"Invalid value spec.volumes[0].downwardAPI: fieldRef and resourceFieldRef can not be specified simultaneously",
		"Required value spec.volumes[0].downwardAPI.resourceFieldRef.containerName: ",
		`Unsupported value spec.volumes[0].downwardAPI.resourceFieldRef.resource: supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`,
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"projected sources", withVolume(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
		{Secret: &corev1.SecretProjection{Items: []corev1.KeyToPath{{Key: "a", Path: "p"}}},
			ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Items: []corev1.KeyToPath{{Key: "a", Path: "p"}}}},
		{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "/token", ExpirationSeconds: ptr.To(int64(60))}},
	}}}), []string{
		"Required value spec.volumes[0].projected.sources[0].secret.name: ",
		"Invalid value spec.volumes[0].projected: conflicting duplicate paths",
		"Forbidden spec.volumes[0].projected.sources[0]: may not specify more than 1 volume type per source",
		"Invalid value spec.volumes[0].projected.sources[1].serviceAccountToken.expirationSeconds: may not specify a duration less than 10 minutes",
		"Invalid value spec.volumes[0].projected.path: must be a relative path",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"ephemeral without template", withVolume(corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}), []string{
		"Required value spec.volumes[0].ephemeral.volumeClaimTemplate: ",
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"ephemeral claim without modes or storage", withVolume(corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
		VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b c"}},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: ptr.To(corev1.PersistentVolumeMode("Raw"))}}}}), []string{
		"Invalid value spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.labels: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
		"Required value spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: at least 1 access mode is required",
		"Required value spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: ",
		`Unsupported value spec.volumes[0].ephemeral.volumeClaimTemplate.spec.volumeMode: supported values: "Block", "Filesystem"`,
		"Not found spec.containers[0].volumeMounts[0].name: ",
	}},
	{"bad volume name", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "Data"}, {Name: "ok"}, {Name: "ok"}}
	}, []string{
		"Invalid value spec.volumes[0].name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		"Duplicate value spec.volumes[2].name: ",
	}},
	{"mounts", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "v"}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
			{Name: "v"},
			{Name: "v", MountPath: "/a", SubPath: "/abs"},
			{Name: "v", MountPath: "/b", SubPath: "x", SubPathExpr: "../y"},
			{Name: "v", MountPath: "/c", MountPropagation: ptr.To(corev1.MountPropagationBidirectional)},
			{Name: "v", MountPath: "/d", MountPropagation: ptr.To(corev1.MountPropagationMode("Both"))},
			{Name: "v", MountPath: "/e", RecursiveReadOnly: ptr.To(corev1.RecursiveReadOnlyEnabled)},
			{Name: "", MountPath: "/f"},
		}
	}, []string{
		"Required value spec.containers[0].volumeMounts[0].mountPath: ",
		// kube reports subPath and the like without the mount's index.
		"Invalid value spec.containers[0].volumeMounts.subPath: must be a relative path",
		"Invalid value spec.containers[0].volumeMounts[2].subPathExpr: subPathExpr and subPath are mutually exclusive",
		"Invalid value spec.containers[0].volumeMounts.subPathExpr: must not contain '..'",
		"Forbidden spec.containers[0].volumeMounts.mountPropagation: Bidirectional mount propagation is available only to privileged containers",
		`Unsupported value spec.containers[0].volumeMounts.mountPropagation: supported values: "Bidirectional", "HostToContainer", "None"`,
		"Forbidden spec.containers[0].volumeMounts.recursiveReadOnly: may only be specified when readOnly is true",
		"Required value spec.containers[0].volumeMounts[6].name: ",
		"Not found spec.containers[0].volumeMounts[6].name: ",
	}},
	{"privileged container may propagate both ways", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "v"}}
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "v", MountPath: "/c", MountPropagation: ptr.To(corev1.MountPropagationBidirectional)}}
	}, nil},
}

func TestPodVolumeValidation(t *testing.T) { runPodCases(t, volumeCases) }

// claimTemplate is a valid generic ephemeral volume.
func claimTemplate() *corev1.EphemeralVolumeSource {
	return &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}}},
	}}
}

// ownVolumeCases are the rules kube applies to a Pod's volumes and not
// to a template's: they name the claims the pod's ephemeral volumes
// create, "<pod>-<volume>".
var ownVolumeCases = []podCase{
	{"claim an ephemeral volume creates", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: claimTemplate()}},
			{Name: "ref", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "p-scratch"}}}}
	}, []string{"Invalid value spec.volumes[1].persistentVolumeClaim.claimName: must not reference a PVC that gets created for an ephemeral volume"}},
	{"claim name too long", func(p *corev1.Pod) {
		p.Name = strings.Repeat("p", 250)
		p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: claimTemplate()}}}
	}, []string{`Invalid value spec.volumes[0].name: PVC name "` + strings.Repeat("p", 250) + `-scratch": must be no more than 253 characters`}},
}

func TestOwnPodVolumeValidation(t *testing.T) {
	runPodCases(t, ownVolumeCases)
	// A template's pods are named later: the same volumes pass.
	for _, tt := range ownVolumeCases {
		pod := basicPod()
		tt.mutate(pod)
		defaultPodSpec(&pod.Spec)
		if errs := podSpecErrors(&pod.Spec, field.NewPath("spec")); len(errs) > 0 {
			t.Errorf("%s, as a template: %v", tt.name, errs)
		}
	}
}

// TestGatedVolumesDropped checks what kube v1.33, its ImageVolume and
// ClusterTrustBundleProjection gates off, does with those sources: it
// drops them, and the mounts of image volumes, before validating.
func TestGatedVolumesDropped(t *testing.T) {
	pod := basicPod()
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "img", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{}}},
		{Name: "bundle", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{}}}}}},
	}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "img", MountPath: "/img"}, {Name: "bundle", MountPath: "/b"}}
	got, errs := createPod(t, pod)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []corev1.Volume{{Name: "bundle", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{}}, DefaultMode: ptr.To(corev1.ProjectedVolumeSourceDefaultMode)}}}}
	if !reflect.DeepEqual(got.Spec.Volumes, want) {
		t.Errorf("volumes: got %+v, want %+v", got.Spec.Volumes, want)
	}
	wantMounts := []corev1.VolumeMount{{Name: "bundle", MountPath: "/b"}}
	if m := got.Spec.Containers[0].VolumeMounts; !reflect.DeepEqual(m, wantMounts) {
		t.Errorf("mounts: got %+v, want %+v", m, wantMounts)
	}
}

// TestVolumeWithoutSource checks the rule that defaulting hides from
// clients: a volume with no source at all (defaults make it emptyDir).
func TestVolumeWithoutSource(t *testing.T) {
	errs := volumeSourceErrors(&corev1.Volume{Name: "v"}, nil, field.NewPath("spec", "volumes").Index(0))
	want := []string{"Required value spec.volumes[0]: must specify a volume type"}
	if got := describeErrors(errs); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
