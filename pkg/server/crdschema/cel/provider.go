package cel

import (
	"github.com/google/cel-go/common/types"
)

// typeProvider tells the type checker about the object types of one CRD
// schema; everything else it leaves to the environment's own provider.
// It is only used while compiling: programs are planned without it, since
// field selection on these objects works through the values' map interface.
type typeProvider struct {
	types.Provider
	objects map[string]*declType
}

func (p *typeProvider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(t.cel), true
	}
	return p.Provider.FindStructType(name)
}

func (p *typeProvider) FindStructFieldNames(name string) ([]string, bool) {
	t, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldNames(name)
	}
	names := make([]string, len(t.fields))
	for i := range t.fields {
		names[i] = t.fields[i].name
	}
	return names, true
}

func (p *typeProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	t, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	if f := t.field(field); f != nil {
		return &types.FieldType{Type: f.t.cel}, true
	}
	return nil, false
}
