package registry

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The resolver limits kube enforces, from libc's.
const (
	maxNameservers  = 3
	maxSearchPaths  = 32
	maxSearchLength = 2048
)

// dnsConfigErrors is kube's validatePodDNSConfig: dnsPolicy None needs
// a nameserver; nameservers are IPs, searches domains (underscores
// allowed, RelaxedDNSSearchValidation being on in v1.33), options named.
func dnsConfigErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	c := spec.DNSConfig
	if spec.DNSPolicy == corev1.DNSNone {
		if c == nil {
			return field.ErrorList{field.Required(p, "must provide `dnsConfig` when `dnsPolicy` is None")}
		}
		if len(c.Nameservers) == 0 {
			return field.ErrorList{field.Required(p.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")}
		}
	}
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	if len(c.Nameservers) > maxNameservers {
		errs = append(errs, field.Invalid(p.Child("nameservers"), printedAs(fmt.Sprintf("%#v", c.Nameservers)), fmt.Sprintf("must not have more than %v nameservers", maxNameservers)))
	}
	for i, ns := range c.Nameservers {
		// Legacy parsing, StrictIPCIDRValidation being off in v1.33.
		errs = append(errs, validation.IsValidIPForLegacyField(p.Child("nameservers").Index(i), ns, false, nil)...)
	}
	if len(c.Searches) > maxSearchPaths {
		errs = append(errs, field.Invalid(p.Child("searches"), printedAs(fmt.Sprintf("%#v", c.Searches)), fmt.Sprintf("must not have more than %v search paths", maxSearchPaths)))
	}
	if len(strings.Join(c.Searches, " ")) > maxSearchLength {
		errs = append(errs, field.Invalid(p.Child("searches"), printedAs(fmt.Sprintf("%#v", c.Searches)), fmt.Sprintf("must not have more than %v characters (including spaces) in the search list", maxSearchLength)))
	}
	for i, s := range c.Searches {
		if s == "." {
			continue
		}
		s = strings.TrimSuffix(s, ".")
		errs = append(errs, searchDomainErrors(s, p.Child("searches").Index(i))...)
	}
	for i, o := range c.Options {
		if o.Name == "" {
			errs = append(errs, field.Required(p.Child("options").Index(i), "must not be empty"))
		}
	}
	return errs
}

// searchDomain is a DNS subdomain whose labels may hold underscores
// and start with one.
var searchDomain = regexp.MustCompile(`^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$`)

// searchDomainErrors is kube's ValidateDNS1123SubdomainWithUnderScore
// with v1.33's message, which shows the pattern of a plain subdomain.
func searchDomainErrors(v string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(v) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.Invalid(p, v, validation.MaxLenError(validation.DNS1123SubdomainMaxLength)))
	}
	if !searchDomain.MatchString(v) {
		errs = append(errs, field.Invalid(p, v, validation.RegexError(
			"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character",
			`[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, "example.com")))
	}
	return errs
}

// dns1123LabelErrors is kube's ValidateDNS1123Label.
func dns1123LabelErrors(v string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// dns1123SubdomainErrors is kube's ValidateDNS1123Subdomain, and the
// check of names kube validates as DNS subdomains.
func dns1123SubdomainErrors(v string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// hostAliasErrors is kube's ValidateHostAliases: an IP, and hostnames
// that are domain names.
func hostAliasErrors(as []corev1.HostAlias, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, a := range as {
		p := path.Index(i)
		errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), a.IP, false, nil)...)
		for j, h := range a.Hostnames {
			errs = append(errs, dns1123SubdomainErrors(h, p.Child("hostnames").Index(j))...)
		}
	}
	return errs
}
