package generic

import (
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// A resource's objects are cached once, in their stored form, and served
// in every version of the resource (and of resources sharing its storage,
// registry.Resource.SharesStorage). A read through another version gets
// the object's view for that version, converted on first use and kept
// with the cached object: its JSON, protobuf message, labels and
// selectable fields are that version's, so selectors match what the
// client sees and watch frames are built once per version.

// Served returns o as res serves it.
func Served(res *registry.Resource, o *watchcache.Object) (*watchcache.Object, error) {
	if o == nil || o.APIVersion == res.APIVersion() {
		return o, nil
	}
	return o.View(res.APIVersion(), res, func(o *watchcache.Object) (*watchcache.Object, error) {
		var obj map[string]any
		if err := unmarshalJSON(o.Served(), &obj); err != nil {
			return nil, err
		}
		obj, err := res.FromStorage(obj)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: obj}
		return &watchcache.Object{
			Key: o.Key, Namespace: o.Namespace, Name: o.Name, Revision: o.Revision, APIVersion: res.APIVersion(),
			Labels: u.GetLabels(), Fields: res.Fields(obj), JSON: b,
		}, nil
	})
}

// ServedEvent returns ev as res's watchers see it.
func ServedEvent(res *registry.Resource, ev *watchcache.Event) (*watchcache.Event, error) {
	v := res.APIVersion()
	if ev.Object.APIVersion == v && (ev.Prev == nil || ev.Prev.APIVersion == v) {
		return ev, nil
	}
	return ev.View(v, res, func(ev *watchcache.Event) (*watchcache.Event, error) {
		obj, err := Served(res, ev.Object)
		if err != nil {
			return nil, err
		}
		prev, err := Served(res, ev.Prev)
		if err != nil {
			return nil, err
		}
		return &watchcache.Event{Type: ev.Type, Revision: ev.Revision, Object: obj, Prev: prev}, nil
	})
}

// servedList converts a page of cached objects for res.
func servedList(res *registry.Resource, items []*watchcache.Object) ([]*watchcache.Object, error) {
	for i, o := range items {
		v, err := Served(res, o)
		if err != nil {
			return nil, apierror.Internal(err)
		}
		items[i] = v
	}
	return items, nil
}

// servedMatch is a selector's test of cached objects as res serves
// them; an object that cannot be converted matches nothing.
func servedMatch(res *registry.Resource, match func(*watchcache.Object) bool) func(*watchcache.Object) bool {
	if match == nil {
		return nil
	}
	return func(o *watchcache.Object) bool {
		v, err := Served(res, o)
		return err == nil && match(v)
	}
}

// servedDecoder decodes stored values as res serves them.
func servedDecoder(res *registry.Resource) watchcache.DecodeFunc {
	decode := decoder(res)
	return func(key string, value []byte, rev int64) (*watchcache.Object, error) {
		o, err := decode(key, value, rev)
		if err != nil {
			return nil, err
		}
		return Served(res, o)
	}
}

// storageForm turns an object of res's version into what is stored.
func storageForm(res *registry.Resource, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	obj, err := res.ToStorage(u.Object)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// ServedVersion returns obj, served or stored JSON, as res serves it
// (registry.Resource.FromStorage). Objects written by this server usually
// start with apiVersion (map keys marshal sorted), which makes the common
// case a prefix check.
func ServedVersion(res *registry.Resource, obj []byte) ([]byte, error) {
	want := res.APIVersion()
	if bytes.HasPrefix(obj, []byte(`{"apiVersion":"`+want+`"`)) {
		return obj, nil
	}
	var m map[string]any
	if err := unmarshalJSON(obj, &m); err != nil {
		return nil, apierror.Internal(err)
	}
	if m["apiVersion"] == want {
		return obj, nil
	}
	m, err := res.FromStorage(m)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return json.Marshal(m)
}
