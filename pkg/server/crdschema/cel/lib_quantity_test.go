package cel

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// libProps are the spec properties the library tests' rules read: s and t
// bounded strings, u an unbounded one, l a bounded list of strings.
const libProps = `"s":{"type":"string","maxLength":128},"t":{"type":"string","maxLength":128},` +
	`"u":{"type":"string"},"l":{"type":"array","maxItems":16,"items":{"type":"string","maxLength":64}}`

// libCase is one rule on spec (with libProps unless props is set),
// compiled and, without compile errors, evaluated on spec.
type libCase struct {
	name    string
	props   string
	rule    string
	msgExpr string
	spec    string   // the object's spec, {} if empty
	compile []string // expected compile errors
	want    []string // expected validation errors
}

func runLibCases(t *testing.T, cases []libCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			props := tc.props
			if props == "" {
				props = libProps
			}
			r, _ := json.Marshal(tc.rule)
			rule := `{"rule":` + string(r)
			if tc.msgExpr != "" {
				m, _ := json.Marshal(tc.msgExpr)
				rule += `,"messageExpression":` + string(m)
			}
			v, errs := Compile(schema(t, spec(props, rule+"}")), rootPath)
			if tc.compile != nil || len(errs) > 0 {
				matchErrors(t, errs, tc.compile)
				return
			}
			obj := tc.spec
			if obj == "" {
				obj = "{}"
			}
			got := v.Validate(context.Background(), object(t, `{"spec":`+obj+`}`), nil)
			matchErrors(t, got, tc.want)
		})
	}
}

// ruleErr is the error of a rule whose evaluation failed on spec.
func ruleErr(msg, rule string) string {
	return "Invalid value spec: " + msg + " evaluating rule: " + rule
}

func ruleFailed(rule string) string { return "Invalid value spec: failed rule: " + rule }

func TestQuantityLibrary(t *testing.T) {
	rulePath := "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
	cases := []libCase{
		// kube's examples
		// kube's documentation has isQuantity('Mi') false, but its parser
		// takes a missing number for 0
		{name: "isQuantity", rule: "isQuantity('1.3G') && isQuantity('1.3Gi') && !isQuantity('1,3G') && isQuantity('10000k') && !isQuantity('200K') && !isQuantity('Three') && isQuantity('Mi') && !isQuantity('20Mo') && !isQuantity('10Mm')"},
		{name: "compareTo", rule: "quantity('200M').compareTo(quantity('0.2G')) == 0 && quantity('50M').compareTo(quantity('50Mi')) == -1 && quantity('50Mi').compareTo(quantity('50M')) == 1"},
		{name: "isGreaterThan isLessThan", rule: "quantity('150Mi').isGreaterThan(quantity('100Mi')) && !quantity('50Mi').isGreaterThan(quantity('100Mi')) && quantity('50M').isLessThan(quantity('100M')) && !quantity('100M').isLessThan(quantity('50M'))"},
		{name: "add sub", rule: "quantity('50k').add(quantity('20k')) == quantity('70k') && quantity('50k').add(20) == quantity('50020') && quantity('50k').sub(quantity('20k')) == quantity('30k') && quantity('50k').sub(20000) == quantity('30k')"},
		{name: "chained arithmetic", rule: "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')"},
		{name: "integers", rule: "quantity('50000000G').isInteger() && quantity('50k').asInteger() == 50000 && !quantity('9999999999999999999999999999999999999G').isInteger() && !quantity('1m').isInteger()"},
		{name: "float", rule: "quantity('50k').sub(20000).asApproximateFloat() == 30000.0 && quantity('1.5').asApproximateFloat() == 1.5"},
		{name: "sign", rule: "sign(quantity('-1m')) == -1 && sign(quantity('0')) == 0 && sign(quantity('3Ei')) == 1"},
		{name: "equal quantities", rule: "quantity('1Gi') == quantity('1073741824') && quantity('1.5') == quantity('1500m')"},

		// the schema's values
		{name: "from a field", rule: "quantity(self.s).isLessThan(quantity(self.t))", spec: `{"s":"500Mi","t":"1Gi"}`},
		{name: "failing", rule: "quantity(self.s).isLessThan(quantity(self.t))", spec: `{"s":"2Gi","t":"1Gi"}`,
			want: []string{ruleFailed("quantity(self.s).isLessThan(quantity(self.t))")}},
		{name: "on list items", rule: "self.l.all(x, isQuantity(x) && sign(quantity(x)) >= 0)", spec: `{"l":["1","-1"]}`,
			want: []string{ruleFailed("self.l.all(x, isQuantity(x) && sign(quantity(x)) >= 0)")}},
		{name: "sum of a list", rule: "self.l.map(x, quantity(x)).all(q, q.isLessThan(quantity('1')))", spec: `{"l":["100m","900m"]}`},

		// errors
		{name: "not a quantity", rule: "quantity(self.s).isInteger()", spec: `{"s":"Three"}`,
			want: []string{ruleErr("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", "quantity(self.s).isInteger()")}},
		{name: "bad suffix", rule: "quantity(self.s).isInteger()", spec: `{"s":"1K"}`,
			want: []string{ruleErr("unable to parse quantity's suffix", "quantity(self.s).isInteger()")}},
		{name: "asInteger overflow", rule: "quantity(self.s).asInteger() > 0", spec: `{"s":"100Ei"}`,
			want: []string{ruleErr("cannot convert value to integer", "quantity(self.s).asInteger() > 0")}},
		{name: "asInteger fraction", rule: "quantity(self.s).asInteger() > 0", spec: `{"s":"1.5"}`,
			want: []string{ruleErr("cannot convert value to integer", "quantity(self.s).asInteger() > 0")}},
		{name: "sign is not a method", rule: "quantity('1').sign() == 1",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:19: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'..."}},
		{name: "no string argument", rule: "quantity(1).isInteger()",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:9: found no matching overload for 'quantity' applied to '(int)'..."}},
		{name: "no string operand", rule: "quantity('1').add('1') == quantity('2')",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:18: found no matching overload for 'add' applied to 'kubernetes.Quantity.(string)'..."}},

		// kube spends unbounded time on large exponents; here they are bounded
		{name: "tiny quantities round up to a nano", rule: "quantity('1e-999999999') == quantity('1n') && quantity('-0.5e-2147483648') == quantity('-1n') && quantity('1e-10') == quantity('1n')"},
		{name: "zero with any exponent", rule: "quantity('0e2147483647') == quantity('0') && quantity('0.0e-2147483648').isLessThan(quantity('1n')) && quantity('0e999').isInteger()"},
		{name: "large exponents", rule: "quantity('1e1000').isGreaterThan(quantity('8Ei')) && quantity('1.5e1000').compareTo(quantity('15e999')) == 0 && isQuantity('1e4294967296')"},
		{name: "too large exponents", rule: "!isQuantity('1e1001') && !isQuantity('0.5e1002') && isQuantity('0.5e1001')"},
		{name: "too large exponent error", rule: "quantity(self.s).isInteger()", spec: `{"s":"3e999999999"}`,
			want: []string{ruleErr("quantities with a power of ten above 1000 are not supported", "quantity(self.s).isInteger()")}},

		// values do not change when operated on
		{name: "immutable", rule: "[quantity('1.000000000000000000001'), quantity('1')].all(q, q.add(q).isGreaterThan(q) && sign(q.sub(q)) == 0 && q.isLessThan(quantity('1.5')))"},

		// costs: parsing an unbounded string is fine for one rule
		{name: "unbounded string", rule: "quantity(self.u).isLessThan(quantity('10Gi'))", spec: `{"u":"1"}`},
	}
	runLibCases(t, cases)
}

// TestBoundQuantityExponent: where the exponent is rewritten, the result
// is the quantity kube parses from the original.
func TestBoundQuantityExponent(t *testing.T) {
	tests := []struct {
		in, out string
		err     bool
	}{
		{in: "1.5Gi", out: "1.5Gi"},
		{in: "1e1000", out: "1e1000"},
		{in: "1e1001", err: true},
		{in: "10.5e1001", out: "10.5e1001"},
		{in: "1e-10", out: "1e-10"},
		{in: "1e-12", out: "1e-11"},
		{in: "-00.00012E-2000", out: "-00.00012E-12"},
		{in: "0e5000", out: "0e1000"},
		{in: "0.00e-5000", out: "0.00e-998"},
		{in: "1e4294967296", out: "1e4294967296"}, // kube truncates it to 0
		{in: "1e+1001", err: true},
		{in: "1e99999999999999999999", out: "1e99999999999999999999"}, // not a number: kube refuses it
		{in: "1ex", out: "1ex"},
	}
	for _, tc := range tests {
		got, err := boundQuantityExponent(tc.in)
		if (err != nil) != tc.err || got != tc.out {
			t.Errorf("boundQuantityExponent(%q) = %q, %v", tc.in, got, err)
		}
		if err == nil && got != tc.in {
			checkSameQuantity(t, tc.in, got)
		}
	}
}

// checkSameQuantity checks that kube parses both strings to the same
// quantity, as far as the library can tell; the exponents must be small
// enough for kube's parser.
func checkSameQuantity(t *testing.T, a, b string) {
	t.Helper()
	qa, errA := resource.ParseQuantity(a)
	qb, errB := resource.ParseQuantity(b)
	if (errA == nil) != (errB == nil) {
		t.Fatalf("%q: %v, %q: %v", a, errA, b, errB)
	}
	if errA != nil {
		return
	}
	fa, fb := qa.AsApproximateFloat64(), qb.AsApproximateFloat64()
	ia, okA := qa.AsInt64()
	ib, okB := qb.AsInt64()
	if qa.Cmp(qb) != 0 || qa.Format != qb.Format || qa.Sign() != qb.Sign() ||
		!(fa == fb || math.IsNaN(fa) && math.IsNaN(fb)) || ia != ib || okA != okB {
		t.Fatalf("%q and %q differ: %v %v, %v %v, %v %v", a, b, qa.String(), qb.String(), fa, fb, ia, ib)
	}
	one := resource.MustParse("1.5")
	sa, sb := qa.DeepCopy(), qb.DeepCopy()
	sa.Add(one)
	sb.Add(one)
	fa, fb = sa.AsApproximateFloat64(), sb.AsApproximateFloat64()
	if sa.Cmp(sb) != 0 || !(fa == fb || math.IsNaN(fa) && math.IsNaN(fb)) {
		t.Fatalf("%q and %q plus 1.5 differ: %v %v", a, b, fa, fb)
	}
}

// TestQuantityHugeExponents: quantities kube would spend minutes on take
// no time.
func TestQuantityHugeExponents(t *testing.T) {
	rule := "!isQuantity(self.s) || quantity(self.s).add(quantity('1')).compareTo(quantity('1')) != 2"
	v, errs := Compile(schema(t, spec(libProps, `{"rule":"`+rule+`"}`)), rootPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	start := time.Now()
	for _, s := range []string{"1e-999999999", "1e2147483647", "1e-2147483648", "12345678901234567890e999999999",
		"0.000000000000000000000e-999999999", "0e-2147483648", "-" + strings.Repeat("9", 100) + "e-2147483600"} {
		if got := v.Validate(context.Background(), object(t, `{"spec":{"s":"`+s+`"}}`), nil); len(got) > 0 {
			t.Errorf("%s: %v", s, got)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestLibraryCosts checks estimated and actual costs of library calls
// against kube's formulas, worked out by hand for each expression.
func TestLibraryCosts(t *testing.T) {
	tests := []struct {
		expr           string
		estMin, estMax uint64
		actual         uint64
	}{
		// 3 characters cost ceil(0.3) = 1 to parse; comparing costs 1
		{"quantity('1Gi').isLessThan(quantity('2Gi'))", 3, 3, 3},
		{"isQuantity('123456789012')", 2, 2, 2},
		{"sign(quantity('1').add(quantity('2')).sub(1)) == 1", 6, 6, 6},
		// getHost's string has no size: == is estimated at 0.1 per character
		// of the literal
		{"url('https://example.com/').getHost() == 'example.com'", 4, 5, 5},
		// url's result has the string's size
		{"url('https://a/') == url('https://a/')", 3, 3, 3},
		// containsIP: 4 to 16 bytes twice at 0.1, plus parsing the string;
		// actually twice the /8's one byte, plus parsing
		{"cidr('10.0.0.0/8').containsIP('10.1.2.3')", 3, 6, 3},
		{"cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", 3, 6, 3},
		// containsCIDR: masking is one more pass, plus 1
		{"cidr('10.0.0.0/8').containsCIDR(cidr('10.1.0.0/16'))", 6, 10, 6},
		{"cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", 6, 10, 6},
		{"ip('10.0.0.1') == ip('10.0.0.1')", 3, 3, 3},
		{"ip.isCanonical('2001:db8::68')", 3, 3, 3},
		// && is estimated from its left operand up
		{"!cidr('10.0.0.0/8').ip().isLoopback() && cidr('10.0.0.0/8').masked().prefixLength() == 8", 4, 8, 8},
		// validate is estimated as a 128-character regex (32) and charged
		// as the format's own (dns1123Label: 30 characters, 8)
		{"!format.dns1123Label().validate('my-name').hasValue()", 35, 35, 11},
		{"format.named('uri').value() == format.uri()", 4, 10, 4},
		{"semver('1.2.3').major() == 1 && semver('1.2.3', true) == semver('1.2.3')", 3, 6, 6},
	}
	env, err := base()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		ast, iss := env.Compile(tc.expr)
		if iss.Err() != nil {
			t.Errorf("%s: %v", tc.expr, iss.Err())
			continue
		}
		est, err := env.EstimateCost(ast, &estimator{})
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		prog, err := env.Program(ast, programOptions...)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		out, det, err := prog.Eval(map[string]any{})
		if err != nil || out != types.True {
			t.Errorf("%s = %v, %v", tc.expr, out, err)
			continue
		}
		if est.Min != tc.estMin || est.Max != tc.estMax || *det.ActualCost() != tc.actual {
			t.Errorf("%s: estimated %d..%d, actual %d; want %d..%d, %d", tc.expr, est.Min, est.Max, *det.ActualCost(), tc.estMin, tc.estMax, tc.actual)
		}
	}
}

// libFuzzRules use every library function on two strings s and t.
var libFuzzRules = []string{
	"quantity(self.s).add(quantity(self.t)).sub(1).compareTo(quantity(self.t)) > -2 && quantity(self.s).isInteger() == (quantity(self.s).asInteger() == quantity(self.s).asInteger()) && sign(quantity(self.s)) < 2 && quantity(self.s).asApproximateFloat() == quantity(self.s).asApproximateFloat()",
	"isQuantity(self.s) != isQuantity(self.t) || quantity(self.s).isGreaterThan(quantity(self.t)) != quantity(self.s).isLessThan(quantity(self.t)) || quantity(self.s) == quantity(self.t).add(-1)",
	"url(self.s).getHost().size() >= 0 && url(self.s).getHostname() != '' || url(self.s).getPort() == '' || url(self.s).getEscapedPath() == '' || size(url(self.s).getQuery()) > 0 || url(self.s).getScheme() == '' || isURL(self.t) || url(self.s) == url(self.t)",
	"ip(self.s).family() == 4 && ip(self.s).isLoopback() || ip(self.s).isGlobalUnicast() || ip(self.s).isLinkLocalUnicast() || ip(self.s).isLinkLocalMulticast() || ip(self.s).isUnspecified() || ip.isCanonical(self.s) || isIP(self.t) || string(ip(self.s)) == self.t || ip(self.s) == ip(self.t)",
	"cidr(self.s).containsIP(self.t) || cidr(self.s).containsCIDR(self.t) || cidr(self.s).masked().containsIP(cidr(self.s).ip()) || cidr(self.s).prefixLength() > 200 || isCIDR(self.t) || string(cidr(self.s)) == self.t || cidr(self.s) == cidr(self.t) || cidr(self.s).containsCIDR(cidr(self.t))",
	"semver(self.s, true).compareTo(semver(self.t, true)) == 0 || semver(self.s).isLessThan(semver(self.t)) || semver(self.s).isGreaterThan(semver(self.t)) || semver(self.s).major() + semver(self.s).minor() + semver(self.s).patch() > 0 || isSemver(self.t, true) || semver(self.s) == semver(self.t)",
	"format.named(self.s).hasValue() || ['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix', 'dns1123SubdomainPrefix', 'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime'].all(n, format.named(n).value().validate(self.t).hasValue())",
}

// FuzzLibraries: any strings through the libraries give errors, never
// panics, and the same errors every time; parsers agree with themselves.
func FuzzLibraries(f *testing.F) {
	var rules []string
	for _, r := range libFuzzRules {
		b, _ := json.Marshal(r)
		rules = append(rules, `{"rule":`+string(b)+`}`)
	}
	v, errs := Compile(schema(f, spec(`"s":{"type":"string","maxLength":256},"t":{"type":"string","maxLength":256}`, strings.Join(rules, ","))), rootPath)
	if len(errs) > 0 {
		f.Fatalf("compile: %v", errs)
	}
	for _, seed := range [][2]string{
		{"1.5Gi", "100m"}, {"1e-999999999", "0e2147483647"}, {"-0.5e-2147483648", "1e1000"}, {"1e1001", "Mi"},
		{"https://example.com:8080/a%20b?x=1&x=2#f", "/path"}, {"example.com", "https://[::1]:80/"},
		{"10.0.0.1", "::1"}, {"fe80::1%eth0", "::ffff:1.2.3.4"}, {"10.0.0.0/8", "10.1.2.3"}, {"2001:db8::/32", "2001:db8::/33"},
		{"1.2.3-rc.1+b", "v01.2"}, {"18446744073709551615.18446744073709551615.1", "1.0.0-01"},
		{"dns1123Label", "My_Name"}, {"uuid", "8A3F04EC-12E5-4F6B-9C8D-1A2B3C4D5E6F"}, {"", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, s, u string) {
		if len(s) > 1024 || len(u) > 1024 {
			return
		}
		obj := map[string]any{"spec": map[string]any{"s": s, "t": u}}
		first := errStrings(v.Validate(context.Background(), obj, nil))
		again := errStrings(v.Validate(context.Background(), obj, nil))
		if strings.Join(first, "\n") != strings.Join(again, "\n") {
			t.Fatalf("errors differ between runs:\n%s\n---\n%s", strings.Join(first, "\n"), strings.Join(again, "\n"))
		}
		// failed rules and evaluation errors only: no recovered panic
		// ("internal error"), no cost limit reached
		for _, e := range first {
			msg, ok := strings.CutPrefix(e, "Invalid value spec: ")
			if !ok || strings.HasPrefix(msg, "internal error") || strings.HasPrefix(msg, "'") ||
				!strings.HasPrefix(msg, "failed rule: ") && !strings.Contains(msg, " evaluating rule: ") {
				t.Fatalf("unexpected error: %s", e)
			}
		}

		// a rewritten exponent parses as kube parses the original (where
		// kube can parse it in reasonable time)
		if b, err := boundQuantityExponent(s); err == nil && b != s && !hugeExponent(s) {
			checkSameQuantity(t, s, b)
		}
		// operations leave their operands alone
		if q, err := parseQuantity(s); err == nil {
			before := q.DeepCopy()
			qv := quantityKind.of(&q)
			quantityArith(false)(qv, qv)
			quantityArith(true)(qv, types.Int(1))
			quantityCompare(func(int) ref.Val { return types.True })(qv, qv)
			if cmpQuantity(&q, &before) != 0 || q.Format != before.Format {
				t.Fatalf("%q changed: %v", s, q.String())
			}
		}
		// a version prints as it parsed
		if sv, err := parseSemver(s); err == nil {
			if sv2, err := parseSemver(sv.String()); err != nil || sv2.compare(sv) != 0 || sv2.String() != sv.String() {
				t.Fatalf("%q: %v then %v, %v", s, sv, sv2, err)
			}
		}
		if n, err := normalizeSemver(s); err == nil {
			if _, err := parseSemver(n); err == nil && !isSemver(types.String(s), types.True).(types.Bool) {
				t.Fatalf("%q normalizes to %q but is not a version", s, n)
			}
		}
	})
}

// hugeExponent reports whether s has an exponent kube's parser may take
// long over.
func hugeExponent(s string) bool {
	i := strings.LastIndexAny(s, "eE")
	if i < 0 {
		return false
	}
	e, err := strconv.ParseInt(s[i+1:], 10, 64)
	return err != nil || int32(e) > 20000 || int32(e) < -20000
}
