package generic

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// A create's managed fields are one entry, its manager's, whose field set
// follows from the object's shape alone: which fields it has, and the
// elements of its lists (an associative list's keys are values of its
// elements). Objects of one shape, such as the pods of a ReplicaSet or a
// client's run of similar ConfigMaps, get the same entry but for its
// time. The field manager computes the first of a shape (converting the
// object to a typed value by its schema, which is most of a create's
// cost); shapeEntries keeps its result for the next.

// maxShapes bounds the shapes remembered; past it they are forgotten
// all at once.
const maxShapes = 512

// shapeEntries remembers managed-fields entries by shape key.
type shapeEntries struct {
	mu sync.Mutex
	m  map[string]map[string]any
}

func (c *shapeEntries) get(key string) map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *shapeEntries) put(key string, entry map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxShapes {
		c.m = map[string]map[string]any{}
	}
	c.m[key] = entry
}

// lastAppliedAnnotation is kubectl's client-side apply record, which the
// field manager reads; objects carrying it take the long way.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// createShapeKey is the key of a create of obj by manager through
// subresource of res, in registry generation gen, or "" when the create may not take a remembered
// entry: it brings managed fields of its own, or kubectl's last-applied
// record.
func createShapeKey(gen uint64, res *registry.Resource, subresource registry.Subresource, manager string, obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	if _, ok := meta["managedFields"]; ok {
		return ""
	}
	if ann, _ := meta["annotations"].(map[string]any); ann != nil {
		if _, ok := ann[lastAppliedAnnotation]; ok {
			return ""
		}
	}
	apiVersion, _ := obj["apiVersion"].(string)
	var b strings.Builder
	// The registry's generation changes with any CRD, and with it the
	// schema a custom resource's fields are found by.
	b.WriteString(strconv.FormatUint(gen, 36))
	b.WriteByte(0)
	b.WriteString(res.GroupVersionResource().String())
	b.WriteByte(0)
	b.WriteString(string(subresource))
	b.WriteByte(0)
	b.WriteString(manager)
	b.WriteByte(0)
	b.WriteString(apiVersion)
	b.WriteByte(0)
	writeShape(&b, obj, false)
	return b.String()
}

// writeShape writes v's shape: map keys, value types, and, inside lists,
// every value.
func writeShape(b *strings.Builder, v any, inList bool) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeShape(b, v[k], inList)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, e := range v {
			writeShape(b, e, true)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case string:
		b.WriteByte('s')
		if inList {
			b.WriteString(strconv.Quote(v))
		}
	case bool:
		b.WriteByte('b')
		if inList {
			b.WriteString(strconv.FormatBool(v))
		}
	case int64:
		b.WriteByte('i')
		if inList {
			b.WriteString(strconv.FormatInt(v, 10))
		}
	case float64:
		b.WriteByte('f')
		if inList {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	case nil:
		b.WriteByte('z')
	default:
		// Not JSON-shaped: a key that matches nothing else.
		b.WriteString("?")
	}
}

// rememberedCreate sets next's managed fields from the entry remembered
// for key, stamped now, and reports whether there was one.
func (f *fieldManagers) rememberedCreate(key string, next *unstructured.Unstructured, now time.Time) bool {
	e := f.shapes.get(key)
	if e == nil {
		return false
	}
	// A shallow copy: the field set under fieldsV1 is shared by every
	// object of the shape, and nothing changes an object's managed
	// fields in place (writes replace the whole list).
	entry := maps.Clone(e)
	entry["time"] = now.UTC().Format(time.RFC3339)
	meta, _ := next.Object["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		next.Object["metadata"] = meta
	}
	meta["managedFields"] = []any{entry}
	return true
}

// rememberCreate keeps the entry the field manager made for a create of
// shape key, when it made exactly one.
func (f *fieldManagers) rememberCreate(key string, out *unstructured.Unstructured) {
	meta, _ := out.Object["metadata"].(map[string]any)
	entries, _ := meta["managedFields"].([]any)
	if len(entries) != 1 {
		return
	}
	entry, ok := entries[0].(map[string]any)
	if !ok {
		return
	}
	f.shapes.put(key, runtime.DeepCopyJSONValue(entry).(map[string]any))
}
