package cel

import (
	"net/url"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// kube's URL library (k8s.io/apiserver/pkg/cel/library):
//
//	url('https://example.com:80/a?b=c')      a URL, or an error
//	isURL(s)                                  whether url() would succeed
//	u.getScheme(), u.getHost(), u.getHostname(), u.getPort(),
//	u.getEscapedPath()                        strings ("" when absent)
//	u.getQuery()                              map(string, list(string))
//
// As in kube, url() accepts what url.ParseRequestURI accepts (absolute
// URLs and absolute paths, as the OpenAPI "uri" format does) and keeps what
// url.Parse makes of it, which handles a fragment correctly.
var urlType = cel.ObjectType("kubernetes.URL")

func urlLibrary() cel.EnvOption {
	u := urlType
	accessor := func(name, id string, get func(*url.URL) string) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{u}, cel.StringType,
			cel.UnaryBinding(unary(func(v urlVal) ref.Val { return types.String(get(v.v)) }))))
	}
	return cel.Lib(library{
		cel.Function("url", cel.Overload("string_to_url",
			[]*cel.Type{cel.StringType}, u, cel.UnaryBinding(stringToURL))),
		cel.Function("isURL", cel.Overload("is_url_string",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(parses(url.ParseRequestURI)))),
		accessor("getScheme", "url_get_scheme", func(u *url.URL) string { return u.Scheme }),
		accessor("getHost", "url_get_host", func(u *url.URL) string { return u.Host }),
		accessor("getHostname", "url_get_hostname", (*url.URL).Hostname),
		accessor("getPort", "url_get_port", (*url.URL).Port),
		accessor("getEscapedPath", "url_get_escaped_path", (*url.URL).EscapedPath),
		cel.Function("getQuery", cel.MemberOverload("url_get_query",
			[]*cel.Type{u}, cel.MapType(cel.StringType, cel.ListType(cel.StringType)),
			cel.UnaryBinding(urlQuery))),
	})
}

// urlVal is a URL in CEL; the URL is never modified.
type urlVal = libVal[*url.URL]

var urlKind = &valueKind[*url.URL]{
	typ:    urlType,
	name:   "URL",
	native: func(u *url.URL) any { c := *u; return &c },
	str:    (*url.URL).String,
	equal:  func(a, b *url.URL) bool { return a.String() == b.String() },
}

var stringToURL = unary(func(s types.String) ref.Val {
	// ParseRequestURI decides what is a URL; it would keep a fragment as part
	// of the path or query, so Parse builds the value.
	if _, err := url.ParseRequestURI(string(s)); err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	u, err := url.Parse(string(s))
	if err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	return urlKind.of(u)
})

// queryType is the declType of getQuery's result, so that it is a map like
// the maps of objects: its keys iterate in order, which kube's (a Go map)
// do not, and a rule gives the same result every time.
var queryType = &declType{kind: kindMap, cel: cel.MapType(cel.StringType, cel.ListType(cel.StringType)),
	elem: &declType{kind: kindList, cel: cel.ListType(cel.StringType),
		elem: &declType{kind: kindString, cel: cel.StringType}}}

var urlQuery = unary(func(v urlVal) ref.Val {
	m := map[string]any{}
	for k, vs := range v.v.Query() {
		l := make([]any, len(vs))
		for i, s := range vs {
			l[i] = s
		}
		m[k] = l
	}
	return &mapVal{t: queryType, m: m}
})
