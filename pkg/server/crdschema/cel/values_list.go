package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// listVal is a JSON array. Its x-kubernetes-list-type decides what equality
// and + mean, as in kube: sets and map lists compare regardless of order,
// and + on them is a union or a merge by key rather than a concatenation.
type listVal struct {
	t     *declType
	items []any
}

var _ traits.Lister = (*listVal)(nil)

func (l *listVal) Get(idx ref.Val) ref.Val {
	i, err := types.IndexOrError(idx)
	if err != nil {
		return types.ValOrErr(idx, "unsupported index: %v", idx)
	}
	if i < 0 || i >= len(l.items) {
		return types.NewErr("index out of bounds: %v", idx)
	}
	return l.t.elem.toVal(l.items[i])
}

func (l *listVal) Size() ref.Val  { return types.Int(len(l.items)) }
func (l *listVal) Type() ref.Type { return types.ListType }
func (l *listVal) Value() any     { return l.items }

func (l *listVal) Iterator() traits.Iterator {
	return &listIterator{l: l}
}

func (l *listVal) Contains(v ref.Val) ref.Val {
	if types.IsUnknownOrError(v) {
		return v
	}
	var err ref.Val
	for _, item := range l.items {
		eq := l.t.elem.toVal(item).Equal(v)
		if eq == types.True {
			return types.True
		}
		if _, ok := eq.(types.Bool); !ok && err == nil {
			err = types.MaybeNoSuchOverloadErr(eq)
		}
	}
	if err != nil {
		return err
	}
	return types.False
}

func (l *listVal) Equal(other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(l.items)) != ol.Size() {
		return types.False
	}
	switch l.t.list {
	case listSet:
		return l.setEqual(ol)
	case listMap:
		return l.mapListEqual(ol)
	}
	for i := range l.items {
		if eq := l.t.elem.toVal(l.items[i]).Equal(ol.Get(types.Int(i))); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (l *listVal) setEqual(ol traits.Lister) ref.Val {
	set := make(map[any]struct{}, len(l.items))
	for _, item := range l.items {
		k, err := setKey(l.t.elem.toVal(item))
		if err != nil {
			return err
		}
		set[k] = struct{}{}
	}
	seen := make(map[any]struct{}, len(set))
	for it := ol.Iterator(); it.HasNext() == types.True; {
		k, err := setKey(it.Next())
		if err != nil {
			return err
		}
		if _, ok := set[k]; !ok {
			return types.False
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(set))
}

func (l *listVal) mapListEqual(ol traits.Lister) ref.Val {
	byKey := make(map[any]ref.Val, len(l.items))
	for _, item := range l.items {
		v := l.t.elem.toVal(item)
		byKey[l.mapListKey(v)] = v
	}
	seen := make(map[any]struct{}, len(byKey))
	for it := ol.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k := l.mapListKey(v)
		mine, ok := byKey[k]
		if !ok {
			return types.False
		}
		if eq := mine.Equal(v); eq != types.True {
			return eq
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(byKey))
}

// mapListKey is a comparable key made of an element's list-map-key values.
func (l *listVal) mapListKey(v ref.Val) any {
	m, ok := v.(traits.Mapper)
	if !ok {
		return nil
	}
	key := func(prop string) any {
		name, ok := escapeName(prop)
		if !ok {
			name = prop
		}
		kv, found := m.Find(types.String(name))
		if !found || kv == nil || types.IsUnknownOrError(kv) {
			return nil
		}
		raw := kv.Value()
		if raw != nil && !reflect.TypeOf(raw).Comparable() {
			return fmt.Sprintf("%#v", raw)
		}
		return raw
	}
	if len(l.t.mapKeys) == 1 {
		return key(l.t.mapKeys[0])
	}
	parts := make([]any, len(l.t.mapKeys))
	for i, p := range l.t.mapKeys {
		parts[i] = key(p)
	}
	return fmt.Sprintf("%#v", parts)
}

func (l *listVal) Add(other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	n, _ := ol.Size().(types.Int)
	elems := make([]ref.Val, len(l.items), len(l.items)+int(n))
	for i, item := range l.items {
		elems[i] = l.t.elem.toVal(item)
	}
	switch l.t.list {
	case listSet:
		set := make(map[any]struct{}, len(elems)+int(n))
		for _, e := range elems {
			k, err := setKey(e)
			if err != nil {
				return err
			}
			set[k] = struct{}{}
		}
		for it := ol.Iterator(); it.HasNext() == types.True; {
			v := it.Next()
			k, err := setKey(v)
			if err != nil {
				return err
			}
			if _, dup := set[k]; !dup {
				set[k] = struct{}{}
				elems = append(elems, v)
			}
		}
	case listMap:
		// keys of the left keep their position and take the right's value
		pos := make(map[any]int, len(elems))
		for i, e := range elems {
			pos[l.mapListKey(e)] = i
		}
		for it := ol.Iterator(); it.HasNext() == types.True; {
			v := it.Next()
			if i, ok := pos[l.mapListKey(v)]; ok {
				elems[i] = v
			} else {
				elems = append(elems, v)
			}
		}
	default:
		for it := ol.Iterator(); it.HasNext() == types.True; {
			elems = append(elems, it.Next())
		}
	}
	return types.NewRefValList(types.DefaultTypeAdapter, elems)
}

// setKey is the identity of a set element: sets hold scalars only.
func setKey(v ref.Val) (any, ref.Val) {
	switch v.(type) {
	case traits.Lister, traits.Mapper:
		return nil, types.NewErr("listSet operations are only supported on lists of scalar values")
	}
	if types.IsUnknownOrError(v) {
		return nil, v
	}
	raw := v.Value()
	if raw != nil && !reflect.TypeOf(raw).Comparable() {
		return fmt.Sprintf("%#v", raw), nil
	}
	return raw, nil
}

func (l *listVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(l.items).AssignableTo(typeDesc) {
		return l.items, nil
	}
	// e.g. []string for ext.Strings' join: convert element by element
	elems := make([]ref.Val, len(l.items))
	for i, item := range l.items {
		elems[i] = l.t.elem.toVal(item)
	}
	return types.NewRefValList(types.DefaultTypeAdapter, elems).ConvertToNative(typeDesc)
}

func (l *listVal) ConvertToType(typeValue ref.Type) ref.Val {
	switch typeValue {
	case types.ListType:
		return l
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", types.ListType.TypeName(), typeValue.TypeName())
}

type listIterator struct {
	iteratorBase
	l *listVal
	i int
}

func (it *listIterator) HasNext() ref.Val { return types.Bool(it.i < len(it.l.items)) }

func (it *listIterator) Next() ref.Val {
	if it.i >= len(it.l.items) {
		return types.NewErr("no more elements")
	}
	v := it.l.t.elem.toVal(it.l.items[it.i])
	it.i++
	return v
}
