package daemonset

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"github.com/davecgh/go-spew/spew"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
)

// templatePrinter writes a template the way kube hashes objects: every
// field, map keys sorted, no String methods, so equal templates print
// alike.
var templatePrinter = spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}

// TemplateHash names a template revision as kube's ComputeHash does:
// FNV-32a of the printed template, then of the collision count (as 8
// little-endian bytes) when there is one, its decimal value encoded in
// the alphabet of generated names. A collision count bumps the hash of
// a template whose name another template already took.
func TemplateHash(t *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	templatePrinter.Fprintf(h, "%#v", *t)
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}
