package cel

import "testing"

func TestSemverLibrary(t *testing.T) {
	rulePath := "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
	runLibCases(t, []libCase{
		{name: "isSemver", rule: "isSemver('1.0.0') && isSemver('1.2.3-rc.1+build.5') && !isSemver('1.0') && !isSemver('v1.0.0') && !isSemver('01.0.0') && !isSemver('1.0.0-') && !isSemver('')"},
		{name: "normalized", rule: "isSemver('v1.0', true) && isSemver('1', true) && isSemver('01.02.003', true) && !isSemver('1.0-rc1', true) && !isSemver('1.0.0.0', true) && " +
			"semver('v01.02.03', true) == semver('1.2.3') && semver('1.2', true) == semver('1.2.0') && semver('1.2.0-rc', true) == semver('1.2.0-rc') && !isSemver('v1.0.0', false)"},
		{name: "parts", rule: "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3-rc.1').patch() == 3 && semver('18446744073709551615.0.0').major() == -1"},
		{name: "precedence", rule: "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1')) && semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta')) && " +
			"semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta')) && semver('1.0.0-beta').isLessThan(semver('1.0.0-beta.2')) && " +
			"semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11')) && semver('1.0.0-beta.11').isLessThan(semver('1.0.0-rc.1')) && " +
			"semver('1.0.0-rc.1').isLessThan(semver('1.0.0')) && semver('2.0.0').isGreaterThan(semver('1.99.99')) && semver('1.10.0').isGreaterThan(semver('1.9.0'))"},
		{name: "compareTo", rule: "semver('1.0.0').compareTo(semver('1.0.0+build')) == 0 && semver('1.0.0').compareTo(semver('1.0.1')) == -1 && semver('1.0.1').compareTo(semver('1.0.0')) == 1"},
		{name: "equality ignores build", rule: "semver('1.0.0+a') == semver('1.0.0+b') && !(semver('1.0.0') == semver('1.0.0-0'))"},

		{name: "from fields", rule: "semver(self.s).isLessThan(semver(self.t))", spec: `{"s":"1.2.3","t":"1.10.0"}`},
		{name: "failing", rule: "semver(self.s, true).isLessThan(semver(self.t, true))", spec: `{"s":"v1.10","t":"v1.9"}`,
			want: []string{ruleFailed("semver(self.s, true).isLessThan(semver(self.t, true))")}},
		{name: "list items", rule: "self.l.all(x, isSemver(x, true) && semver(x, true).major() == 1)", spec: `{"l":["v1","1.2.3","2.0.0"]}`,
			want: []string{ruleFailed("self.l.all(x, isSemver(x, true) && semver(x, true).major() == 1)")}},

		{name: "not a version", rule: "semver(self.s).major() == 1", spec: `{"s":"1.0"}`,
			want: []string{ruleErr("No Major.Minor.Patch elements found", "semver(self.s).major() == 1")}},
		{name: "leading zero", rule: "semver(self.s).major() == 1", spec: `{"s":"1.01.0"}`,
			want: []string{ruleErr(`Minor number must not contain leading zeroes "01"`, "semver(self.s).major() == 1")}},
		{name: "short with prerelease", rule: "semver(self.s, true).major() == 1", spec: `{"s":"v1.2-rc"}`,
			want: []string{ruleErr("short version cannot contain PreRelease/Build meta data", "semver(self.s, true).major() == 1")}},
		{name: "no bool", rule: "semver('1.0.0', 'true').major() == 1",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:7: found no matching overload for 'semver' applied to '(string, string)'..."}},

		{name: "unbounded string", rule: "isSemver(self.u) && semver(self.u).isGreaterThan(semver('1.0.0'))", spec: `{"u":"1.0.1"}`},
	})
}

// TestParseSemver checks the parser against blang/semver's behaviour
// (which kube uses), message by message.
func TestParseSemver(t *testing.T) {
	tests := []struct {
		in   string
		want string // the version, or the error
	}{
		{"1.2.3", "1.2.3"},
		{"0.0.0", "0.0.0"},
		{"1.2.3-alpha.1.beta-2+build.007.x-y", "1.2.3-alpha.1.beta-2+build.007.x-y"},
		{"1.2.3+build-1.2", "1.2.3+build-1.2"},
		{"1.2.3-0.a", "1.2.3-0.a"},
		{"1.2.3-a+b-c+d", "error: Invalid character(s) found in build meta data \"b-c+d\""},
		{"", "error: Version string empty"},
		{"1", "error: No Major.Minor.Patch elements found"},
		{"1.2", "error: No Major.Minor.Patch elements found"},
		{"a.2.3", "error: Invalid character(s) found in major number \"a\""},
		{"01.2.3", "error: Major number must not contain leading zeroes \"01\""},
		{".2.3", "error: strconv.ParseUint: parsing \"\": invalid syntax"},
		{"1..3", "error: strconv.ParseUint: parsing \"\": invalid syntax"},
		{"1.2.", "error: strconv.ParseUint: parsing \"\": invalid syntax"},
		{"18446744073709551616.0.0", "error: strconv.ParseUint: parsing \"18446744073709551616\": value out of range"},
		{"1.2.3.4", "error: Invalid character(s) found in patch number \"3.4\""},
		{"1.2.03", "error: Patch number must not contain leading zeroes \"03\""},
		{"1.2.3-", "error: Prerelease is empty"},
		{"1.2.3-a..b", "error: Prerelease is empty"},
		{"1.2.3-01", "error: Numeric PreRelease version must not contain leading zeroes \"01\""},
		{"1.2.3-a_b", "error: Invalid character(s) found in prerelease \"a_b\""},
		{"1.2.3-é", "error: Invalid character(s) found in prerelease \"é\""},
		{"1.2.3+", "error: Build meta data is empty"},
		{"1.2.3+a..b", "error: Build meta data is empty"},
		{"1.2.3-+a", "error: Prerelease is empty"},
		{"1.2.-3", "error: strconv.ParseUint: parsing \"\": invalid syntax"},
	}
	for _, tc := range tests {
		v, err := parseSemver(tc.in)
		got := v.String()
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Errorf("parseSemver(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeSemver(t *testing.T) {
	tests := []struct{ in, want string }{
		{"v1", "1.0.0"},
		{"1.2", "1.2.0"},
		{"v01.002.0003", "1.2.3"},
		{"00.00.00", "0.0.0"},
		{"1.2.03-rc.01", "1.2.3-rc.01"}, // the prerelease is left alone (and then refused)
		{"1.2.0-rc", "1.2.0-rc"},
		{"1.2.00-rc", "1.2.0-rc"},
		{"1.2.00+b", "1.2.0+b"},
		{"v1-rc", "error: short version cannot contain PreRelease/Build meta data"},
		{"1.2+b", "error: short version cannot contain PreRelease/Build meta data"},
		{"", ".0.0"},             // then refused
		{"vv1", "0v1.0.0"},       // then refused
		{"1.0-rc.1", "1.0-rc.1"}, // three parts: not short, then refused
	}
	for _, tc := range tests {
		got, err := normalizeSemver(tc.in)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Errorf("normalizeSemver(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
