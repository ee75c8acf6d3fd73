//lint:file-ignore ST1005 the messages are blang/semver's, which kube reports

package cel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// kube's semver library (k8s.io/apiserver/pkg/cel/library, version 1 as
// kube 1.33 builds it):
//
//	semver('1.2.3-rc.1+build')                a Semver, or an error
//	semver('v01.2', true)                     normalized first: a leading v
//	                                          and leading zeros dropped,
//	                                          missing minor and patch added
//	isSemver(s), isSemver(s, true)            whether semver() would succeed
//	v.major(), v.minor(), v.patch()
//	v.isGreaterThan(v2), v.isLessThan(v2), v.compareTo(v2)
//
// Versions parse and compare as github.com/blang/semver/v4 (which kube
// uses) does, with its messages; build metadata is ignored by comparisons
// and equality.
var semverType = cel.ObjectType("kubernetes.Semver")

func semverLibrary() cel.EnvOption {
	s := semverType
	field := func(name string, get func(semver) uint64) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("semver_"+name, []*cel.Type{s}, cel.IntType,
			cel.UnaryBinding(unary(func(v semverVal) ref.Val {
				return types.Int(get(v.v)) // above 2^63-1 wraps around, as in kube
			}))))
	}
	compare := func(name, id string, resultType *cel.Type, result func(int) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{s, s}, resultType,
			cel.BinaryBinding(binary(func(a, b semverVal) ref.Val { return result(a.v.compare(b.v)) }))))
	}
	return cel.Lib(library{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{cel.StringType}, s,
				cel.UnaryBinding(func(arg ref.Val) ref.Val { return stringToSemver(arg, types.False) })),
			cel.Overload("string_bool_to_semver", []*cel.Type{cel.StringType, cel.BoolType}, s,
				cel.BinaryBinding(stringToSemver))),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{cel.StringType}, cel.BoolType,
				cel.UnaryBinding(func(arg ref.Val) ref.Val { return isSemver(arg, types.False) })),
			cel.Overload("is_semver_string_bool", []*cel.Type{cel.StringType, cel.BoolType}, cel.BoolType,
				cel.BinaryBinding(isSemver))),
		field("major", func(v semver) uint64 { return v.major }),
		field("minor", func(v semver) uint64 { return v.minor }),
		field("patch", func(v semver) uint64 { return v.patch }),
		compare("isGreaterThan", "semver_is_greater_than", cel.BoolType, func(c int) ref.Val { return types.Bool(c > 0) }),
		compare("isLessThan", "semver_is_less_than", cel.BoolType, func(c int) ref.Val { return types.Bool(c < 0) }),
		compare("compareTo", "semver_compare_to", cel.IntType, func(c int) ref.Val { return types.Int(c) }),
	})
}

var stringToSemver = binary(func(s types.String, normalize types.Bool) ref.Val {
	v, err := parseSemverMaybeNormalized(string(s), bool(normalize))
	if err != nil {
		return types.WrapErr(err)
	}
	return semverKind.of(v)
})

var isSemver = binary(func(s types.String, normalize types.Bool) ref.Val {
	_, err := parseSemverMaybeNormalized(string(s), bool(normalize))
	return types.Bool(err == nil)
})

func parseSemverMaybeNormalized(s string, normalize bool) (semver, error) {
	if normalize {
		s2, err := normalizeSemver(s)
		if err != nil {
			return semver{}, err
		}
		s = s2
	}
	return parseSemver(s)
}

// semver is a version: MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD].
type semver struct {
	major, minor, patch uint64
	pre                 []prerelease
	build               []string
}

// prerelease is one dot-separated part of a prerelease: a number or an
// identifier.
type prerelease struct {
	num   uint64
	str   string
	isNum bool
}

const (
	semverDigits   = "0123456789"
	semverAlphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + semverDigits
)

// onlyOf reports whether s has no character outside set (true for "").
func onlyOf(s, set string) bool {
	for _, r := range s {
		if !strings.ContainsRune(set, r) {
			return false
		}
	}
	return true
}

func leadingZero(s string) bool { return len(s) > 1 && s[0] == '0' }

// parseSemver parses strictly, in blang/semver's order of checks and with
// its messages.
func parseSemver(s string) (semver, error) {
	if s == "" {
		return semver{}, errors.New("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return semver{}, errors.New("No Major.Minor.Patch elements found")
	}
	var v semver
	var err error
	if v.major, err = versionNumber(parts[0], "major", "Major"); err != nil {
		return semver{}, err
	}
	if v.minor, err = versionNumber(parts[1], "minor", "Minor"); err != nil {
		return semver{}, err
	}
	patch := parts[2]
	var build, pre []string
	if i := strings.IndexByte(patch, '+'); i >= 0 {
		build = strings.Split(patch[i+1:], ".")
		patch = patch[:i]
	}
	if i := strings.IndexByte(patch, '-'); i >= 0 {
		pre = strings.Split(patch[i+1:], ".")
		patch = patch[:i]
	}
	if v.patch, err = versionNumber(patch, "patch", "Patch"); err != nil {
		return semver{}, err
	}
	for _, p := range pre {
		pr, err := parsePrerelease(p)
		if err != nil {
			return semver{}, err
		}
		v.pre = append(v.pre, pr)
	}
	for _, b := range build {
		if b == "" {
			return semver{}, errors.New("Build meta data is empty")
		}
		if !onlyOf(b, semverAlphanum) {
			return semver{}, fmt.Errorf("Invalid character(s) found in build meta data %q", b)
		}
		v.build = append(v.build, b)
	}
	return v, nil
}

func versionNumber(s, lower, upper string) (uint64, error) {
	if !onlyOf(s, semverDigits) {
		return 0, fmt.Errorf("Invalid character(s) found in %s number %q", lower, s)
	}
	if leadingZero(s) {
		return 0, fmt.Errorf("%s number must not contain leading zeroes %q", upper, s)
	}
	return strconv.ParseUint(s, 10, 64) // "" and overflow fail here
}

func parsePrerelease(s string) (prerelease, error) {
	switch {
	case s == "":
		return prerelease{}, errors.New("Prerelease is empty")
	case onlyOf(s, semverDigits):
		if leadingZero(s) {
			return prerelease{}, fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", s)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return prerelease{}, err
		}
		return prerelease{num: n, isNum: true}, nil
	case onlyOf(s, semverAlphanum):
		return prerelease{str: s}, nil
	}
	return prerelease{}, fmt.Errorf("Invalid character(s) found in prerelease %q", s)
}

// normalizeSemver turns a loose version into a strict one the way kube's
// normalizing overloads do: "v" prefix dropped, leading zeros of each part
// dropped, and a missing minor or patch set to 0 (which a version with a
// prerelease or build may not rely on).
func normalizeSemver(s string) (string, error) {
	parts := strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3)
	for i, p := range parts {
		if len(p) < 2 {
			continue
		}
		p = strings.TrimLeft(p, "0")
		if p == "" || p[0] < '0' || p[0] > '9' {
			p = "0" + p // all zeros, or zeros before a prerelease or build
		}
		parts[i] = p
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return "", errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return strings.Join(parts, "."), nil
}

// compare is -1, 0 or 1 as v is below, equal to or above o by semver's
// precedence: numbers first, then a version without prerelease above one
// with, then prerelease parts left to right (numbers below identifiers,
// more parts above fewer).
func (v semver) compare(o semver) int {
	for _, c := range [][2]uint64{{v.major, o.major}, {v.minor, o.minor}, {v.patch, o.patch}} {
		if c[0] != c[1] {
			return cmpOrdered(c[0], c[1])
		}
	}
	switch {
	case len(v.pre) == 0 && len(o.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(o.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(o.pre); i++ {
		if c := v.pre[i].compare(o.pre[i]); c != 0 {
			return c
		}
	}
	return cmpOrdered(len(v.pre), len(o.pre))
}

func (p prerelease) compare(o prerelease) int {
	switch {
	case p.isNum && o.isNum:
		return cmpOrdered(p.num, o.num)
	case p.isNum:
		return -1
	case o.isNum:
		return 1
	}
	return strings.Compare(p.str, o.str)
}

func cmpOrdered[T uint64 | int](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (v semver) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d.%d.%d", v.major, v.minor, v.patch)
	for i, p := range v.pre {
		if i == 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte('.')
		}
		if p.isNum {
			b.WriteString(strconv.FormatUint(p.num, 10))
		} else {
			b.WriteString(p.str)
		}
	}
	for i, s := range v.build {
		if i == 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// semverVal is a version in CEL. As in kube, its only Go value is the
// string.
type semverVal = libVal[semver]

var semverKind = &valueKind[semver]{
	typ:   semverType,
	name:  "Semver",
	str:   semver.String,
	equal: func(a, b semver) bool { return a.compare(b) == 0 },
}
