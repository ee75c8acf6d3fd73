package cel

import (
	"maps"
	"net/url"
	"reflect"
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// kube's format library (k8s.io/apiserver/pkg/cel/library, in kube since
// 1.31):
//
//	format.dns1123Label().validate('my-name')   optional.none() when valid,
//	                                            else optional.of(list of errors)
//	format.named('dns1123Label')                optional.of(the format), or
//	                                            optional.none() for an unknown name
//
// The named formats are kube's: dns1123Label, dns1123Subdomain,
// dns1035Label, qualifiedName, dns1123LabelPrefix, dns1123SubdomainPrefix,
// dns1035LabelPrefix, labelValue, uri, uuid, byte, date and datetime, with
// kube's checks and messages.
var formatType = cel.ObjectType("kubernetes.NamedFormat")

// Size bounds kube's costs use.
const (
	maxFormatSize          = 64  // the longest format name, for equality
	maxNameFormatRegexSize = 128 // the regex length validate is estimated with
)

// namedFormat is a format; validate returns its errors for a string.
// maxRegexSize is the length of the regular expression it amounts to,
// which its runtime cost is computed from.
type namedFormat struct {
	name         string
	validate     func(string) []string
	maxRegexSize int
}

var namedFormats = map[string]*namedFormat{
	"dns1123Label": {"DNS1123Label", func(s string) []string { return apivalidation.NameIsDNSLabel(s, false) }, 30},
	"dns1123Subdomain": {"DNS1123Subdomain", func(s string) []string {
		return apivalidation.NameIsDNSSubdomain(s, false)
	}, 60},
	"dns1035Label": {"DNS1035Label", func(s string) []string {
		return apivalidation.NameIsDNS1035Label(s, false)
	}, 30},
	"qualifiedName":      {"QualifiedName", validation.IsQualifiedName, 60},
	"dns1123LabelPrefix": {"DNS1123LabelPrefix", func(s string) []string { return apivalidation.NameIsDNSLabel(s, true) }, 30},
	"dns1123SubdomainPrefix": {"DNS1123SubdomainPrefix", func(s string) []string {
		return apivalidation.NameIsDNSSubdomain(s, true)
	}, 60},
	"dns1035LabelPrefix": {"DNS1035LabelPrefix", func(s string) []string {
		return apivalidation.NameIsDNS1035Label(s, true)
	}, 30},
	"labelValue": {"LabelValue", validation.IsValidLabelValue, 40},
	"uri": {"URI", func(s string) []string {
		if _, err := url.ParseRequestURI(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}, 1103}, // govalidator's URL regex, which kube estimates with
	"uuid":     {"uuid", check(strfmt.IsUUID, "does not match the UUID format"), len(strfmt.UUIDPattern)},
	"byte":     {"byte", check(isBase64, "invalid base64"), 84}, // govalidator's base64 regex
	"date":     {"date", check(strfmt.IsDate, "invalid date"), len(strfmt.DateTimePattern)},
	"datetime": {"datetime", check(strfmt.IsDateTime, "invalid datetime"), len(strfmt.DateTimePattern)},
}

func check(ok func(string) bool, msg string) func(string) []string {
	return func(s string) []string {
		if ok(s) {
			return nil
		}
		return []string{msg}
	}
}

// isBase64 is the OpenAPI "byte" format: standard base64 with padding
// (kube-openapi matches govalidator's regular expression, which amounts to
// this).
func isBase64(s string) bool {
	n := len(s)
	if n == 0 || n%4 != 0 {
		return false
	}
	pad := 0
	if s[n-1] == '=' {
		pad = 1
		if s[n-2] == '=' {
			pad = 2
		}
	}
	for i := 0; i < n-pad; i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

func formatLibrary() cel.EnvOption {
	opts := library{
		cel.Function("validate", cel.MemberOverload("format-validate",
			[]*cel.Type{formatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)),
			cel.BinaryBinding(formatValidate))),
		cel.Function("format.named", cel.Overload("format-named",
			[]*cel.Type{cel.StringType}, cel.OptionalType(formatType),
			cel.UnaryBinding(unary(func(name types.String) ref.Val {
				f, ok := namedFormats[string(name)]
				if !ok {
					return types.OptionalNone
				}
				return types.OptionalOf(formatVal{f})
			})))),
	}
	for _, name := range slices.Sorted(maps.Keys(namedFormats)) {
		v := formatVal{namedFormats[name]}
		fn := "format." + name
		opts = append(opts, cel.Function(fn, cel.Overload(fn, nil, formatType,
			cel.FunctionBinding(func(...ref.Val) ref.Val { return v }))))
	}
	return cel.Lib(opts)
}

var formatValidate = binary(func(f formatVal, s types.String) ref.Val {
	errs := f.f.validate(string(s))
	if len(errs) == 0 {
		return types.OptionalNone
	}
	return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, errs))
})

// formatVal is a named format in CEL. It is not a libVal because the cost
// estimator reads its format's regex size through f.
type formatVal struct {
	f *namedFormat
}

// formatKind has no Go value or string form for a format, as kube's has
// none.
var formatKind = &valueKind[*namedFormat]{typ: formatType, name: "Format"}

func (v formatVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return formatKind.convertToNative(v.f, typeDesc)
}

func (v formatVal) ConvertToType(typeVal ref.Type) ref.Val {
	return formatKind.convertToType(v, v.f, typeVal)
}

func (v formatVal) Equal(other ref.Val) ref.Val {
	return equalAs(v, other, func(a, b formatVal) bool { return a.f.name == b.f.name })
}

func (v formatVal) Type() ref.Type { return formatType }
func (v formatVal) Value() any     { return v.f }
