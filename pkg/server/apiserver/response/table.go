package response

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

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
			row.Cells[i] = cell(c, obj, now)
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

var (
	nameColumn = registry.Column{Name: "Name", Type: "string", Format: "name", Path: ".metadata.name",
		Description: "Name must be unique within a namespace."}
	ageColumn = registry.Column{Name: "Age", Type: "date", Path: ".metadata.creationTimestamp",
		Description: "CreationTimestamp is when the object was created."}
)

func tableColumns(res *registry.Resource) []registry.Column {
	cols := append([]registry.Column{nameColumn}, res.Columns...)
	for _, c := range res.Columns {
		if c.Path == ".metadata.creationTimestamp" {
			return cols
		}
	}
	if (res.Typed || len(res.Columns) == 0) && !res.NoAge {
		cols = append(cols, ageColumn)
	}
	return cols
}

// cell computes one table cell. The Age column shows a duration like
// kubectl's; other date columns keep the timestamp.
func cell(c registry.Column, obj map[string]any, now time.Time) any {
	if v, ok := c.Cell(obj, now); ok {
		return v
	}
	v, ok := registry.Lookup(obj, c.Path)
	if !ok || v == nil {
		if c.Type == "string" || c.Name == "Age" {
			return "<unknown>"
		}
		return nil
	}
	if c.Name == "Age" && c.Path == ageColumn.Path {
		ts, _ := v.(string)
		t, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			return "<unknown>"
		}
		return duration.HumanDuration(now.Sub(t))
	}
	switch v := v.(type) {
	case string, int64, float64, bool:
		return v
	case []any, map[string]any:
		b, _ := json.Marshal(v)
		return strings.TrimSpace(string(b))
	default:
		return fmt.Sprint(v)
	}
}
