package registry

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// unknownTime is kube's cell for a time that is not set.
const unknownTime = "<unknown>"

// Since renders the RFC 3339 time ts as how long before now it was, as
// kube's printers render ages and event times; unset is "<unknown>".
func Since(ts string, now time.Time) string {
	if ts == "" {
		return unknownTime
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || t.IsZero() {
		return unknownTime
	}
	return duration.HumanDuration(now.Sub(t))
}

// CustomCell renders the value v a custom resource's printer column
// found (found false when its path found nothing) as
// apiextensions-apiserver does: a missing value, or one not of the
// column's type, is an empty (null) cell; a string column shows any
// value as text, maps and lists as JSON, and a null as kubectl's
// JSONPath templates do; a date column shows how long ago the time was.
func CustomCell(colType string, v any, found bool, now time.Time) any {
	if !found {
		return nil
	}
	if v == nil {
		if colType == "string" {
			return "<no value>"
		}
		return nil
	}
	switch colType {
	case "string":
		return textCell(v)
	case "integer":
		switch n := v.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		case json.Number:
			if i, err := n.Int64(); err == nil {
				return i
			}
		}
	case "number":
		switch n := v.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		case json.Number:
			if f, err := n.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if s, ok := v.(string); ok {
			return dateCell(s, now)
		}
	}
	return nil
}

// dateCell is a custom date column's cell: an empty string is an unset
// time, text that is not RFC 3339 is "<invalid>".
func dateCell(s string, now time.Time) string {
	if s == "" || s == "null" {
		return unknownTime
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "<invalid>"
	}
	return Since(t.Format(time.RFC3339Nano), now)
}

// textCell prints a value as kubectl's JSONPath templates print it.
func textCell(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any, []any:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	default:
		return fmt.Sprint(v)
	}
}
