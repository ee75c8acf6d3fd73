package deployment

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
)

// TemplateHash is the pod-template-hash of template, as kube computes
// it: FNV-32a over the template's deep printing, then the collision
// count's four bytes (little-endian, padded to eight) when it is set,
// the sum's decimal digits encoded in kube's safe alphabet (no vowels,
// no look-alike characters) so a name never spells a word.
func TemplateHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	h.Write([]byte(asV133(dump.ForHash(*template))))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// v137Only are the printings of the unset fields the API types this
// module builds with have and kube v1.33's do not. The printing names
// every field, so hashing them would give every template another hash
// than kube-controller-manager v1.33 gives it, and a Deployment moved
// between the two would roll out for nothing. A v1.33 server never
// stores these fields, so they are always unset. Order matters: an
// emptyDir's mode is the only `*int32` Mode that ends its struct once
// the items' User fields are still there.
var v137Only = []struct{ printed, v133 string }{
	{" Mode:(*int32)<nil>}", "}"}, // EmptyDirVolumeSource.Mode
	{" User:(*int64)<nil>", ""},   // KeyToPath, DownwardAPIVolumeFile, projections
	{" DefaultUser:(*int64)<nil>", ""},
	{" RestartPolicyRules:([]v1.ContainerRestartRule)<nil>", ""},
	{" FileKeyRef:(*v1.FileKeySelector)<nil>", ""},
	{" Mode:(*v1.GRPCProbeMode)<nil>", ""},
	{" Protocol:(*v1.HTTPProtocol)<nil>", ""},
	{" BindMountOptions:([]string)<nil>", ""},
	{" PodCertificate:(*v1.PodCertificateProjection)<nil>", ""},
	{" HostnameOverride:(*string)<nil>", ""},
	{" SchedulingGroup:(*v1.PodSchedulingGroup)<nil>", ""},
	{" EvictionResponders:([]v1.EvictionResponder)<nil>", ""},
}

// asV133 is printed as kube v1.33's types print the same template.
func asV133(printed string) string {
	for _, f := range v137Only {
		printed = strings.ReplaceAll(printed, f.printed, f.v133)
	}
	return printed
}
