package response

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// Table renders objects as a meta.k8s.io/v1 Table, the form kubectl get
// prints. Columns come from the resource description: Name, the
// resource's columns, then Age (as of now) unless a column already shows
// the creation time. withColumns false leaves the definitions out, as
// for the second and later events of a watch.
func Table(res *registry.Resource, objs [][]byte, includeObject string, withColumns bool, now time.Time) (*metav1.Table, error) {
	switch includeObject {
	case "", "Metadata", "None", "Object":
	default:
		return nil, apierror.BadRequest("includeObject must be None, Metadata or Object, not %q", includeObject)
	}
	cols := tableColumns(res)
	t := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, Rows: []metav1.TableRow{}}
	if withColumns {
		for _, c := range cols {
			t.ColumnDefinitions = append(t.ColumnDefinitions, metav1.TableColumnDefinition{
				Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority,
			})
		}
	}
	for _, b := range objs {
		var obj map[string]any
		if err := unmarshalJSON(b, &obj); err != nil {
			return nil, apierror.Internal(err)
		}
		row := metav1.TableRow{Cells: make([]any, len(cols))}
		for i, c := range cols {
			row.Cells[i] = cell(res, c, obj, now)
		}
		switch includeObject {
		case "", "Metadata":
			p, err := PartialObject(b)
			if err != nil {
				return nil, apierror.Internal(err)
			}
			row.Object = runtime.RawExtension{Raw: p}
		case "Object":
			row.Object = runtime.RawExtension{Raw: json.RawMessage(b)}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// metaDocs are ObjectMeta's field descriptions, which kube-apiserver
// gives the Name and Age columns of every table.
var metaDocs = metav1.ObjectMeta{}.SwaggerDoc()

var (
	nameColumn = registry.Column{Name: "Name", Type: "string", Format: "name", Path: ".metadata.name",
		Description: metaDocs["name"]}
	// ageColumn is a custom resource's: kube-apiserver's default printer
	// column, a date the table renders as a duration.
	ageColumn = registry.Column{Name: "Age", Type: "date", Path: ".metadata.creationTimestamp",
		Description: metaDocs["creationTimestamp"]}
	// typedAgeColumn is a built-in kind's: kube's printers declare it a
	// string column holding the duration.
	typedAgeColumn = registry.Column{Name: "Age", Type: "string", Path: ".metadata.creationTimestamp",
		Description: metaDocs["creationTimestamp"]}
)

func tableColumns(res *registry.Resource) []registry.Column {
	if res.OwnColumns {
		return res.Columns
	}
	cols := append([]registry.Column{nameColumn}, res.Columns...)
	for _, c := range res.Columns {
		if c.Path == ".metadata.creationTimestamp" {
			return cols
		}
	}
	switch {
	case res.NoAge:
	case res.Typed:
		cols = append(cols, typedAgeColumn)
	case len(res.Columns) == 0:
		cols = append(cols, ageColumn)
	}
	return cols
}

// cell computes one table cell: from the column's own function, else
// by path, as kube's printers render a built-in kind's fields and as
// apiextensions-apiserver renders a custom resource's printer columns.
func cell(res *registry.Resource, c registry.Column, obj map[string]any, now time.Time) any {
	if v, ok := c.Cell(obj, now); ok {
		return v
	}
	v, found := registry.Lookup(obj, c.Path)
	if !found {
		v = nil
	}
	if res.Typed {
		return typedCell(c, v, now)
	}
	return registry.CustomCell(c.Type, v, found, now)
}

// typedCell renders a built-in kind's field as kube's printers do: the
// Go field's value, its zero value when unset, and the creation time as
// how long ago it was.
func typedCell(c registry.Column, v any, now time.Time) any {
	if c.Path == ".metadata.creationTimestamp" && c.Type != "date" {
		ts, _ := v.(string)
		return registry.Since(ts, now)
	}
	switch v := v.(type) {
	case nil:
		if c.Type == "string" {
			return ""
		}
		return nil
	case string, int64, float64, bool:
		return v
	case []any, map[string]any:
		b, _ := json.Marshal(v)
		return strings.TrimSpace(string(b))
	default:
		return fmt.Sprint(v)
	}
}
