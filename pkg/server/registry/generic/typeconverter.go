package generic

import (
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/setpoint-dev/setpoint/pkg/server/openapi"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// typeConverter gives the field manager the schema it merges objects of
// res by: which lists are sets or maps keyed by a field, which maps are
// atomic. Built-in kinds share one converter; a custom resource's covers
// every served version of its CRD, since managed fields recorded in one
// version are compared in another.
func (f *fieldManagers) typeConverter(res *registry.Resource) (managedfields.TypeConverter, error) {
	if res.Typed {
		if f.builtin != nil {
			return f.builtin, nil
		}
		var rs []openapi.Resource
		for _, b := range registry.Builtin() {
			// Kinds that are not stored are in too: kube records the
			// managed fields of an access review it answers with.
			if !b.Typed {
				continue
			}
			r, err := openapi.ResourceOf(b)
			if err != nil {
				return nil, err
			}
			rs = append(rs, r)
		}
		tc, err := managedfields.NewTypeConverter(openapi.MergeDefinitions(rs), false)
		if err != nil {
			return nil, err
		}
		f.builtin = tc
		return tc, nil
	}
	if res.Schema == nil {
		return managedfields.NewDeducedTypeConverter(), nil
	}
	var rs []openapi.Resource
	for _, other := range f.reg.Resources() {
		if other.GroupResource() != res.GroupResource() || other.Schema == nil {
			continue
		}
		r, err := openapi.ResourceOf(other)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	preserve := res.Schema.XPreserveUnknownFields != nil && *res.Schema.XPreserveUnknownFields
	return managedfields.NewTypeConverter(openapi.MergeDefinitions(rs), preserve)
}
