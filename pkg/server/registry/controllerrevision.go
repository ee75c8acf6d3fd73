package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// controllerRevisionStrategy holds ControllerRevisions to kube's rules.
// A revision is a snapshot of a StatefulSet's or DaemonSet's template
// that its controller rolls back to, so its data never changes once
// written.
type controllerRevisionStrategy struct{}

func (controllerRevisionStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	errs := revisionNumberErrors(obj)
	data, ok := obj["data"]
	switch _, isObject := data.(map[string]any); {
	case !ok || data == nil:
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	case !isObject:
		errs = append(errs, field.Required(field.NewPath("data"), "data must be a valid JSON object"))
	}
	return errs
}

func (controllerRevisionStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	errs := revisionNumberErrors(obj)
	if !equality.Semantic.DeepEqual(obj["data"], old["data"]) {
		errs = append(errs, field.Invalid(field.NewPath("data"), rawExtension(obj["data"]), "field is immutable"))
	}
	return errs
}

func revisionNumberErrors(obj map[string]any) field.ErrorList {
	return nonNegative(int64At(obj, "revision"), field.NewPath("revision"))
}

// rawExtension prints data as kube prints the RawExtension it holds.
func rawExtension(data any) printedAs {
	raw := "[]uint8(nil)"
	if data != nil {
		b, _ := json.Marshal(data)
		// Older Go printed a byte slice's type as []uint8, as the
		// oracle's build does.
		raw = strings.Replace(fmt.Sprintf("%#v", b), "[]byte{", "[]uint8{", 1)
	}
	return printedAs("runtime.RawExtension{Raw:" + raw + ", Object:runtime.Object(nil)}")
}
