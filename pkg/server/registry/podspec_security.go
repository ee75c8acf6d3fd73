package registry

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// hostUsers is whether a pod's containers share the host's user
// namespace, the default.
func hostUsers(spec *corev1.PodSpec) bool {
	return spec.HostUsers == nil || *spec.HostUsers
}

// podSecurityErrors is kube's validatePodSpecSecurityContext: ids in
// range, sysctls, enums, and seccomp and AppArmor profiles. (kube keeps
// hostNetwork, hostPID and hostIPC in the security context internally;
// the v1 spec has them on the pod.)
func podSecurityErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	sc := spec.SecurityContext
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	if sc.FSGroup != nil {
		errs = append(errs, idErrors(validation.IsValidGroupID(*sc.FSGroup), *sc.FSGroup, p.Child("fsGroup"))...)
	}
	if sc.RunAsUser != nil {
		errs = append(errs, idErrors(validation.IsValidUserID(*sc.RunAsUser), *sc.RunAsUser, p.Child("runAsUser"))...)
	}
	if sc.RunAsGroup != nil {
		errs = append(errs, idErrors(validation.IsValidGroupID(*sc.RunAsGroup), *sc.RunAsGroup, p.Child("runAsGroup"))...)
	}
	for i, g := range sc.SupplementalGroups {
		errs = append(errs, idErrors(validation.IsValidGroupID(g), g, p.Child("supplementalGroups").Index(i))...)
	}
	if spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace && spec.HostPID {
		errs = append(errs, field.Invalid(p.Child("shareProcessNamespace"), *spec.ShareProcessNamespace, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	errs = append(errs, sysctlErrors(spec, p.Child("sysctls"))...)
	if sc.FSGroupChangePolicy != nil {
		errs = append(errs, enumErrors(p.Child("fsGroupChangePolicy"), *sc.FSGroupChangePolicy, "Always", "OnRootMismatch")...)
	}
	errs = append(errs, seccompErrors(sc.SeccompProfile, p.Child("seccompProfile"))...)
	errs = append(errs, windowsOptionsErrors(sc.WindowsOptions, p.Child("windowsOptions"))...)
	errs = append(errs, appArmorErrors(sc.AppArmorProfile, p.Child("appArmorProfile"))...)
	if sc.SupplementalGroupsPolicy != nil {
		errs = append(errs, enumErrors(p.Child("supplementalGroupsPolicy"), *sc.SupplementalGroupsPolicy, "Merge", "Strict")...)
	}
	if sc.SELinuxChangePolicy != nil {
		// kube v1.33 allows MountOption only behind the SELinuxMount
		// gate, which is off.
		errs = append(errs, enumErrors(p.Child("seLinuxChangePolicy"), *sc.SELinuxChangePolicy, "Recursive")...)
	}
	return errs
}

func idErrors(msgs []string, id int64, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(p, id, msg))
	}
	return errs
}

// sysctlPattern is kube's sysctl name: dot- or slash-separated segments.
var sysctlPattern = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// sysctlErrors is kube's validateSysctls for a new object: valid,
// unique names, and no sysctl of a namespace the pod shares with the
// host.
func sysctlErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, s := range spec.SecurityContext.Sysctls {
		np := p.Index(i).Child("name")
		switch {
		case s.Name == "":
			errs = append(errs, field.Required(np, ""))
		case len(s.Name) > 253 || !sysctlPattern.MatchString(s.Name):
			errs = append(errs, field.Invalid(np, s.Name, "must have at most 253 characters and match regex "+sysctlPattern.String()))
		case seen.Has(s.Name):
			errs = append(errs, field.Duplicate(np, s.Name))
		}
		switch ns := sysctlNamespace(s.Name); {
		case spec.HostNetwork && ns == "Net":
			errs = append(errs, field.Invalid(np, s.Name, "may not be specified when 'hostNetwork' is true"))
		case spec.HostIPC && ns == "IPC":
			errs = append(errs, field.Invalid(np, s.Name, "may not be specified when 'hostIPC' is true"))
		}
		seen.Insert(s.Name)
	}
	return errs
}

// ipcSysctls are the sysctls of the IPC namespace named in full; the
// ones under net. and fs.mqueue. go by prefix.
var ipcSysctls = sets.New("kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
	"kernel.shm", "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg")

// sysctlNamespace is the kernel namespace ("Net", "IPC" or "") a sysctl
// belongs to, as the kubelet classifies it.
func sysctlNamespace(name string) string {
	// A name whose first separator is a slash uses slashes for dots.
	if i := strings.IndexAny(name, "./"); i >= 0 && name[i] == '/' {
		name = strings.Map(func(r rune) rune {
			switch r {
			case '.':
				return '/'
			case '/':
				return '.'
			}
			return r
		}, name)
	}
	if i := strings.IndexByte(name, '*'); i >= 0 {
		name = name[:i]
	}
	switch {
	case ipcSysctls.Has(name):
		return "IPC"
	case strings.HasPrefix(name, "net."):
		return "Net"
	case strings.HasPrefix(name, "fs.mqueue."):
		return "IPC"
	}
	return ""
}

// seccompErrors is kube's validateSeccompProfileField: a type, and a
// relative localhostProfile exactly when the type is Localhost.
func seccompErrors(sp *corev1.SeccompProfile, p *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	var errs field.ErrorList
	types := []corev1.SeccompProfileType{corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined}
	switch sp.Type {
	case corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined:
	case "":
		errs = append(errs, field.Required(p.Child("type"), "type is required when seccompProfile is set"))
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), sp.Type, types))
	}
	switch {
	case sp.Type == corev1.SeccompProfileTypeLocalhost && sp.LocalhostProfile == nil:
		errs = append(errs, field.Required(p.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
	case sp.Type == corev1.SeccompProfileTypeLocalhost:
		errs = append(errs, localDescendingPathErrors(*sp.LocalhostProfile, p.Child("localhostProfile"))...)
	case sp.LocalhostProfile != nil:
		errs = append(errs, field.Invalid(p.Child("localhostProfile"), sp, "can only be set when seccomp type is Localhost"))
	}
	return errs
}

// appArmorErrors is kube's ValidateAppArmorProfileField.
func appArmorErrors(ap *corev1.AppArmorProfile, p *field.Path) field.ErrorList {
	if ap == nil {
		return nil
	}
	lp := p.Child("localhostProfile")
	switch ap.Type {
	case corev1.AppArmorProfileTypeLocalhost:
		if ap.LocalhostProfile == nil {
			return field.ErrorList{field.Required(lp, "must be set when AppArmor type is Localhost")}
		}
		var errs field.ErrorList
		prof := *ap.LocalhostProfile
		if strings.TrimSpace(prof) != prof {
			errs = append(errs, field.Invalid(lp, prof, "must not be padded with whitespace"))
		} else if prof == "" {
			errs = append(errs, field.Required(lp, "must be set when AppArmor type is Localhost"))
		}
		// PATH_MAX less the terminating NUL.
		if len(prof) > 4095 {
			errs = append(errs, field.TooLong(lp, "", 4095))
		}
		return errs
	case corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined:
		if ap.LocalhostProfile != nil {
			return field.ErrorList{field.Invalid(lp, ap.LocalhostProfile, "can only be set when AppArmor type is Localhost")}
		}
		return nil
	case "":
		return field.ErrorList{field.Required(p.Child("type"), "type is required when appArmorProfile is set")}
	}
	return field.ErrorList{field.NotSupported(p.Child("type"), ap.Type, []corev1.AppArmorProfileType{
		corev1.AppArmorProfileTypeLocalhost, corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined})}
}

// containerSecurityErrors is kube's ValidateSecurityContext for a
// container. kube's --allow-privileged check is not ported: Setpoint
// serves clusters as kubeadm and kind configure them, privileged
// allowed.
func containerSecurityErrors(sc *corev1.SecurityContext, hostUsers bool, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	if sc.RunAsUser != nil {
		errs = append(errs, idErrors(validation.IsValidUserID(*sc.RunAsUser), *sc.RunAsUser, p.Child("runAsUser"))...)
	}
	if sc.RunAsGroup != nil {
		errs = append(errs, idErrors(validation.IsValidGroupID(*sc.RunAsGroup), *sc.RunAsGroup, p.Child("runAsGroup"))...)
	}
	if pm := sc.ProcMount; pm != nil {
		errs = append(errs, enumErrors(p.Child("procMount"), *pm, "Default", "Unmasked")...)
		if hostUsers && *pm == corev1.UnmaskedProcMount {
			errs = append(errs, field.Invalid(p.Child("procMount"), pm, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	errs = append(errs, seccompErrors(sc.SeccompProfile, p.Child("seccompProfile"))...)
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if c == "CAP_SYS_ADMIN" {
					errs = append(errs, field.Invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	errs = append(errs, windowsOptionsErrors(sc.WindowsOptions, p.Child("windowsOptions"))...)
	return append(errs, appArmorErrors(sc.AppArmorProfile, p.Child("appArmorProfile"))...)
}

// hostUsersErrors is kube's validateHostUsers: a pod in its own user
// namespace shares no other namespace with the host. kube names two of
// the fields capitalised.
func hostUsersErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if hostUsers(spec) {
		return nil
	}
	var errs field.ErrorList
	for _, f := range []struct {
		name string
		set  bool
	}{{"hostNetwork", spec.HostNetwork}, {"HostPID", spec.HostPID}, {"HostIPC", spec.HostIPC}} {
		if f.set {
			errs = append(errs, field.Forbidden(p.Child(f.name), "when `pod.Spec.HostUsers` is false"))
		}
	}
	return errs
}

// osErrors is kube's validateOS and the rules that follow from the
// named OS: a Linux pod has no Windows options; a Windows pod none of
// the Linux-only fields.
func osErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if spec.OS == nil {
		return nil
	}
	op := p.Child("os")
	switch spec.OS.Name {
	case "":
		return field.ErrorList{field.Required(op.Child("name"), "cannot be empty")}
	case corev1.Linux:
		return linuxPodErrors(spec, p)
	case corev1.Windows:
		return windowsPodErrors(spec, p)
	}
	return field.ErrorList{field.NotSupported(op, spec.OS.Name, []string{"linux", "windows"})}
}

// podContainers visits the pod's containers as kube does: init,
// regular, then ephemeral, each with its path.
func podContainers(spec *corev1.PodSpec, p *field.Path, visit func(*corev1.Container, *field.Path)) {
	for i := range spec.InitContainers {
		visit(&spec.InitContainers[i], p.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		visit(&spec.Containers[i], p.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		visit(&c, p.Child("ephemeralContainers").Index(i))
	}
}

func linuxPodErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	const msg = "windows options cannot be set for a linux pod"
	var errs field.ErrorList
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		errs = append(errs, field.Forbidden(p.Child("securityContext", "windowsOptions"), msg))
	}
	podContainers(spec, p, func(c *corev1.Container, cp *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			errs = append(errs, field.Forbidden(cp.Child("securityContext", "windowsOptions"), msg))
		}
	})
	return errs
}

// windowsField is a field a Windows pod may not set, and whether it is.
type windowsField struct {
	path *field.Path
	set  bool
}

func windowsPodErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var fields []windowsField
	if sc := spec.SecurityContext; sc != nil {
		sp := p.Child("securityContext")
		fields = append(fields,
			windowsField{sp.Child("appArmorProfile"), sc.AppArmorProfile != nil},
			windowsField{sp.Child("seLinuxOptions"), sc.SELinuxOptions != nil},
			windowsField{p.Child("hostUsers"), spec.HostUsers != nil},
			windowsField{p.Child("hostPID"), spec.HostPID},
			windowsField{p.Child("hostIPC"), spec.HostIPC},
			windowsField{sp.Child("seccompProfile"), sc.SeccompProfile != nil},
			windowsField{sp.Child("fsGroup"), sc.FSGroup != nil},
			windowsField{sp.Child("fsGroupChangePolicy"), sc.FSGroupChangePolicy != nil},
			windowsField{sp.Child("sysctls"), len(sc.Sysctls) > 0},
			windowsField{p.Child("shareProcessNamespace"), spec.ShareProcessNamespace != nil},
			windowsField{sp.Child("runAsUser"), sc.RunAsUser != nil},
			windowsField{sp.Child("runAsGroup"), sc.RunAsGroup != nil},
			windowsField{sp.Child("supplementalGroups"), sc.SupplementalGroups != nil},
			windowsField{sp.Child("supplementalGroupsPolicy"), sc.SupplementalGroupsPolicy != nil},
			windowsField{sp.Child("seLinuxChangePolicy"), sc.SELinuxChangePolicy != nil},
		)
	}
	podContainers(spec, p, func(c *corev1.Container, cp *field.Path) {
		sc := c.SecurityContext
		if sc == nil {
			return
		}
		sp := cp.Child("securityContext")
		fields = append(fields,
			windowsField{sp.Child("appArmorProfile"), sc.AppArmorProfile != nil},
			windowsField{sp.Child("seLinuxOptions"), sc.SELinuxOptions != nil},
			windowsField{sp.Child("seccompProfile"), sc.SeccompProfile != nil},
			windowsField{sp.Child("capabilities"), sc.Capabilities != nil},
			windowsField{sp.Child("readOnlyRootFilesystem"), sc.ReadOnlyRootFilesystem != nil},
			windowsField{sp.Child("privileged"), sc.Privileged != nil},
			windowsField{sp.Child("allowPrivilegeEscalation"), sc.AllowPrivilegeEscalation != nil},
			windowsField{sp.Child("procMount"), sc.ProcMount != nil},
			windowsField{sp.Child("runAsUser"), sc.RunAsUser != nil},
			windowsField{sp.Child("runAsGroup"), sc.RunAsGroup != nil},
		)
	})
	var errs field.ErrorList
	for _, f := range fields {
		if f.set {
			errs = append(errs, field.Forbidden(f.path, "cannot be set for a windows pod"))
		}
	}
	return errs
}
