package registry

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits of a Windows security context: a credential spec is a few
// hundred bytes in practice; user and domain lengths are Active
// Directory's.
const (
	maxCredentialSpecKiB = 64
	maxUserDomainLength  = 256
	maxUserLength        = 104
)

var (
	controlChars = regexp.MustCompile(`[[:cntrl:]]+`)
	// A NetBIOS domain: 1-15 characters, no leading dot, none of \/:*?"<>|.
	netBIOSDomain = regexp.MustCompile(`^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`)
	// A DNS domain: dot-separated labels of letters, digits and dashes.
	dnsDomain = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)
	// Characters a Windows user name may not hold.
	userNameForbidden = regexp.MustCompile(`["/\\:;|=,\+\*\?<>@\[\]]`)
	onlyDotsOrSpaces  = regexp.MustCompile(`^[\. ]+$`)
)

// windowsOptionsErrors is kube's validateWindowsSecurityContextOptions:
// a GMSA spec name and content, and a [DOMAIN\]USER run-as name.
func windowsOptionsErrors(o *corev1.WindowsSecurityContextOptions, p *field.Path) field.ErrorList {
	if o == nil {
		return nil
	}
	var errs field.ErrorList
	if n := o.GMSACredentialSpecName; n != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*n) {
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpecName"), n, msg))
		}
	}
	if s := o.GMSACredentialSpec; s != nil {
		switch {
		case *s == "":
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpec"), s, "gmsaCredentialSpec cannot be an empty string"))
		case len(*s) > maxCredentialSpecKiB*1024:
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpec"), s, fmt.Sprintf("gmsaCredentialSpec size must be under %d KiB", maxCredentialSpecKiB)))
		}
	}
	if u := o.RunAsUserName; u != nil {
		up := p.Child("runAsUserName")
		for _, msg := range runAsUserNameProblems(*u) {
			errs = append(errs, field.Invalid(up, u, msg))
		}
	}
	return errs
}

// runAsUserNameProblems lists what is wrong with a Windows user name,
// in kube's words and order.
func runAsUserNameProblems(name string) []string {
	switch {
	case name == "":
		return []string{"runAsUserName cannot be an empty string"}
	case controlChars.MatchString(name):
		return []string{"runAsUserName cannot contain control characters"}
	case strings.Count(name, "\\") > 1:
		return []string{"runAsUserName cannot contain more than one backslash"}
	}
	var msgs []string
	domain, user, hasDomain := strings.Cut(name, "\\")
	if !hasDomain {
		domain, user = "", name
	}
	if len(domain) >= maxUserDomainLength {
		msgs = append(msgs, fmt.Sprintf("runAsUserName's Domain length must be under %d characters", maxUserDomainLength))
	}
	if hasDomain && !netBIOSDomain.MatchString(domain) && !dnsDomain.MatchString(domain) {
		msgs = append(msgs, "runAsUserName's Domain doesn't match the NetBios nor the DNS format")
	}
	switch {
	case user == "":
		msgs = append(msgs, "runAsUserName's User cannot be empty")
	case len(user) > maxUserLength:
		msgs = append(msgs, fmt.Sprintf("runAsUserName's User length must not be longer than %d characters", maxUserLength))
	}
	if onlyDotsOrSpaces.MatchString(user) {
		msgs = append(msgs, "runAsUserName's User cannot contain only periods or spaces")
	}
	if userNameForbidden.MatchString(user) {
		msgs = append(msgs, `runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`)
	}
	return msgs
}

// hostProcessErrors is kube's validateWindowsHostProcessPod: a pod
// with a host-process container runs every container so, on the host's
// network, with the pod's and containers' settings agreeing. (kube's
// --allow-privileged check is left out, as for privileged containers.)
func hostProcessErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var pod *bool
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		pod = sc.WindowsOptions.HostProcess
	}
	var errs field.ErrorList
	containers, hostProcess := 0, 0
	podContainers(spec, p, func(c *corev1.Container, cp *field.Path) {
		containers++
		var own *bool
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			own = c.SecurityContext.WindowsOptions.HostProcess
		}
		if pod != nil && own != nil && *pod != *own {
			errs = append(errs, field.Invalid(cp.Child("securityContext", "windowsOptions", "hostProcess"), *own,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", *pod)))
		}
		if (own != nil && *own) || (own == nil && pod != nil && *pod) {
			hostProcess++
		}
	})
	if hostProcess == 0 {
		return errs
	}
	if hostProcess != containers {
		errs = append(errs, field.Invalid(p, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
	}
	if !spec.HostNetwork {
		errs = append(errs, field.Invalid(p.Child("hostNetwork"), false, "hostNetwork must be true if pod contains any hostProcess containers"))
	}
	return errs
}
