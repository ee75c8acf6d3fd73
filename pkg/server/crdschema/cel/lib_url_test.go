package cel

import (
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"
)

func TestURLLibrary(t *testing.T) {
	rulePath := "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
	runLibCases(t, []libCase{
		// kube's examples
		{name: "isURL", rule: "isURL('https://example.com/path') && isURL('/absolute-path') && !isURL('../relative-path') && !isURL('') && !isURL('example.com')"},
		{name: "scheme", rule: "url('https://example.com/path').getScheme() == 'https' && url('/absolute-path').getScheme() == ''"},
		{name: "host", rule: "url('https://example.com:80/').getHost() == 'example.com:80' && url('https://example.com/').getHost() == 'example.com' && url('https://[::1]:80/').getHost() == '[::1]:80' && url('/absolute-path').getHost() == ''"},
		{name: "hostname", rule: "url('https://example.com:80/').getHostname() == 'example.com' && url('https://127.0.0.1:80/').getHostname() == '127.0.0.1' && url('https://[::1]:80/').getHostname() == '::1' && url('/path').getHostname() == ''"},
		{name: "port", rule: "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == ''"},
		{name: "escaped path", rule: "url('https://example.com/path').getEscapedPath() == '/path' && url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/' && url('https://example.com').getEscapedPath() == ''"},
		{name: "query", rule: "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']} && url('https://example.com/path').getQuery() == {}"},
		{name: "query values", rule: "url('https://example.com/?k=a&k=b').getQuery()['k'][1] == 'b' && !('x' in url('https://example.com/?k=a').getQuery())"},
		// getQuery's result has no size bound, so (as in kube) a rule may not
		// iterate over it
		{name: "query iteration", rule: "url('https://example.com/?c=1&a=2&b=3').getQuery().all(k, k != '')",
			compile: []string{"Forbidden " + rulePath + ": estimated rule cost exceeds budget by factor of more than 100x...", "Forbidden...", "Forbidden..."}},
		{name: "fragment", rule: "url('https://example.com/path#frag').getEscapedPath() == '/path' && url('https://example.com/?a=b#frag').getQuery() == {'a': ['b']}"},
		{name: "equality", rule: "url('https://example.com/a') == url('https://example.com/a') && !(url('https://example.com/a') == url('https://example.com/b'))"},

		// the schema's values
		{name: "from a field", rule: "url(self.s).getScheme() == 'https'", spec: `{"s":"https://example.com"}`},
		{name: "failing", rule: "url(self.s).getScheme() == 'https'", spec: `{"s":"http://example.com"}`,
			want: []string{ruleFailed("url(self.s).getScheme() == 'https'")}},
		{name: "list items", rule: "self.l.all(x, isURL(x) && url(x).getHostname().endsWith('.example.com'))", spec: `{"l":["https://a.example.com/x","https://b.example.com:8443"]}`},
		{name: "unbounded messageExpression", rule: "url(self.s).getPort() == ''", msgExpr: "'port ' + url(self.s).getPort() + ' is not allowed'", spec: `{"s":"https://example.com:8080/"}`,
			// as in kube, the accessors' strings have no size bound
			compile: []string{"Forbidden " + rulePath[:len(rulePath)-len("rule")] + "messageExpression: estimated messageExpression cost exceeds budget by factor of more than 100x...", "Forbidden...", "Forbidden..."}},
		{name: "messageExpression", rule: "url(self.s).getPort() == ''", msgExpr: "'port of ' + self.s + ' is not allowed'", spec: `{"s":"https://example.com:8080/"}`,
			want: []string{"Invalid value spec: port of https://example.com:8080/ is not allowed"}},

		// errors
		{name: "not a URL", rule: "url(self.s).getScheme() == 'https'", spec: `{"s":"example.com"}`,
			want: []string{ruleErr(`URL parse error during conversion from string: parse "example.com": invalid URI for request`, "url(self.s).getScheme() == 'https'")}},
		{name: "bad escape", rule: "url(self.s).getScheme() == 'https'", spec: `{"s":"https://example.com/%zz"}`,
			want: []string{ruleErr(`URL parse error during conversion from string: parse "https://example.com/%zz": invalid URL escape "%zz"`, "url(self.s).getScheme() == 'https'")}},
		{name: "no such function", rule: "url('https://example.com').getPath() == '/'",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:35: undeclared reference to 'getPath' (in container '')..."}},

		// costs
		{name: "unbounded string", rule: "url(self.u).getHost() == 'example.com'", spec: `{"u":"https://example.com/"}`},
	})
}

// TestURLQueryOrder: getQuery's keys iterate in order (kube's do not), so
// a rule's result does not vary.
func TestURLQueryOrder(t *testing.T) {
	q := urlQuery(stringToURL(types.String("https://example.com/?c=1&a=2&b=3&a=4"))).(traits.Mapper)
	var keys []string
	for it := q.Iterator(); it.HasNext() == types.True; {
		keys = append(keys, string(it.Next().(types.String)))
	}
	if strings.Join(keys, ",") != "a,b,c" {
		t.Errorf("keys %v", keys)
	}
	if a := q.Get(types.String("a")).(traits.Lister); a.Size() != types.Int(2) || a.Get(types.Int(1)) != types.String("4") {
		t.Errorf("a = %v", a)
	}
}
