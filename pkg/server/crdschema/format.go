package crdschema

import (
	"net"
	"net/url"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/strfmt"
	netutils "k8s.io/utils/net"
)

// stringFormats are the string formats kube validates in CRD schemas (the
// set of k8s.io/apiextensions-apiserver at 1.34+), keyed by name without
// dashes because kube normalizes "date-time" to "datetime" and so on.
// Formats outside this set are ignored, as kube strips them before
// validating. Where kube-openapi exports the check it is used directly so
// that results match kube exactly.
var stringFormats = map[string]func(string) bool{
	"bsonobjectid": strfmt.IsBSONObjectID,
	"uri":          isURI,
	"email":        strfmt.IsEmail,
	"hostname":     strfmt.IsHostname,
	"ipv4":         isIPv4,
	"ipv6":         isIPv6,
	"cidr":         isCIDR,
	"mac":          isMAC,
	"uuid":         strfmt.IsUUID,
	"uuid3":        strfmt.IsUUID3,
	"uuid4":        strfmt.IsUUID4,
	"uuid5":        strfmt.IsUUID5,
	"isbn":         registryFormat("isbn"),
	"isbn10":       registryFormat("isbn10"),
	"isbn13":       registryFormat("isbn13"),
	"creditcard":   registryFormat("creditcard"),
	"ssn":          registryFormat("ssn"),
	"hexcolor":     registryFormat("hexcolor"),
	"rgbcolor":     registryFormat("rgbcolor"),
	"byte":         isBase64,
	"password":     func(string) bool { return true },
	"date":         strfmt.IsDate,
	"duration":     strfmt.IsDuration,
	"datetime":     strfmt.IsDateTime,
	"k8sshortname": strfmt.IsShortName,
	"k8slongname":  strfmt.IsLongName,
}

// registryFormat defers to kube-openapi's registry for the rarely used
// formats whose checks it does not export; the registry takes a lock, which
// is acceptable for them but not for the common ones above.
func registryFormat(name string) func(string) bool {
	return func(s string) bool { return strfmt.Default.Validates(name, s) }
}

// stringFormat returns the check for a string format, or nil if kube
// ignores the format.
func stringFormat(name string) func(string) bool {
	return stringFormats[strings.ReplaceAll(name, "-", "")]
}

// numberFormat returns the numeric format kube enforces for a node of type
// t; all others are stripped.
func numberFormat(t jsonType, name string) numFormat {
	switch {
	case t == typeInteger && name == "int32":
		return numFormatInt32
	case t == typeInteger && name == "int64":
		return numFormatInt64
	case t == typeNumber && name == "float":
		return numFormatFloat
	case t == typeNumber && name == "double":
		return numFormatDouble
	}
	return numFormatNone
}

// isURI accepts what Go's url.ParseRequestURI accepts, as kube does.
func isURI(s string) bool {
	_, err := url.ParseRequestURI(s)
	return err == nil
}

// isIPv4 tolerates leading zeros like kube, for compatibility with data
// accepted before Go 1.17.
func isIPv4(s string) bool {
	return netutils.ParseIPSloppy(s) != nil && strings.Contains(s, ".")
}

func isIPv6(s string) bool {
	return net.ParseIP(s) != nil && strings.Contains(s, ":")
}

func isCIDR(s string) bool {
	_, _, err := netutils.ParseCIDRSloppy(s)
	return err == nil
}

func isMAC(s string) bool {
	_, err := net.ParseMAC(s)
	return err == nil
}

// isBase64 accepts non-empty standard base64 with padding; unlike
// encoding/base64 it does not skip newlines, matching kube.
func isBase64(s string) bool {
	n := len(s)
	if n == 0 || n%4 != 0 {
		return false
	}
	pad := 0
	switch {
	case s[n-2] == '=' && s[n-1] == '=':
		pad = 2
	case s[n-1] == '=':
		pad = 1
	}
	for i := 0; i < n-pad; i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}
