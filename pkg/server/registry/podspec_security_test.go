package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func podSecurity(sc corev1.PodSecurityContext) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.SecurityContext = &sc }
}

func containerSecurity(sc corev1.SecurityContext) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext = &sc }
}

var securityCases = []podCase{
	{"valid contexts", func(p *corev1.Pod) {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To(int64(1000)), RunAsGroup: ptr.To(int64(0)), FSGroup: ptr.To(int64(2000)),
			SupplementalGroups: []int64{3000}, SupplementalGroupsPolicy: ptr.To(corev1.SupplementalGroupsPolicyStrict),
			FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
			Sysctls:             []corev1.Sysctl{{Name: "net.ipv4.ip_local_port_range", Value: "1024 65535"}, {Name: "kernel/shm_rmid_forced", Value: "1"}},
			SeccompProfile:      &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("profiles/audit.json")},
			AppArmorProfile:     &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}}
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To(int64(0)), AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:   &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}, Drop: []corev1.Capability{"ALL"}},
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}, ProcMount: ptr.To(corev1.DefaultProcMount),
			AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To("k8s-deny-write")}}
	}, nil},
	{"pod ids out of range", podSecurity(corev1.PodSecurityContext{RunAsUser: ptr.To(int64(-1)), RunAsGroup: ptr.To(int64(1 << 31)),
		FSGroup: ptr.To(int64(-2)), SupplementalGroups: []int64{1, -1}}), []string{
		"Invalid value spec.securityContext.fsGroup: must be between 0 and 2147483647, inclusive",
		"Invalid value spec.securityContext.runAsUser: must be between 0 and 2147483647, inclusive",
		"Invalid value spec.securityContext.runAsGroup: must be between 0 and 2147483647, inclusive",
		"Invalid value spec.securityContext.supplementalGroups[1]: must be between 0 and 2147483647, inclusive",
	}},
	{"pod enums", podSecurity(corev1.PodSecurityContext{SupplementalGroupsPolicy: ptr.To(corev1.SupplementalGroupsPolicy("Union")),
		FSGroupChangePolicy: ptr.To(corev1.PodFSGroupChangePolicy("Never")), SELinuxChangePolicy: ptr.To(corev1.SELinuxChangePolicyMountOption)}), []string{
		`Unsupported value spec.securityContext.fsGroupChangePolicy: supported values: "Always", "OnRootMismatch"`,
		`Unsupported value spec.securityContext.supplementalGroupsPolicy: supported values: "Merge", "Strict"`,
		`Unsupported value spec.securityContext.seLinuxChangePolicy: supported values: "Recursive"`,
	}},
	{"sysctls", func(p *corev1.Pod) {
		p.Spec.HostNetwork = true
		p.Spec.HostIPC = true
		p.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{
			{Name: ""}, {Name: "Net.Bad"}, {Name: "kernel.msgmax"}, {Name: "kernel.msgmax"}, {Name: "net.core.somaxconn"}, {Name: "fs/mqueue/msg_max"},
		}}
	}, []string{
		"Required value spec.securityContext.sysctls[0].name: ",
		`Invalid value spec.securityContext.sysctls[1].name: must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
		"Invalid value spec.securityContext.sysctls[2].name: may not be specified when 'hostIPC' is true",
		"Duplicate value spec.securityContext.sysctls[3].name: ",
		"Invalid value spec.securityContext.sysctls[3].name: may not be specified when 'hostIPC' is true",
		"Invalid value spec.securityContext.sysctls[4].name: may not be specified when 'hostNetwork' is true",
		"Invalid value spec.securityContext.sysctls[5].name: may not be specified when 'hostIPC' is true",
	}},
	{"shared process namespace with host PID", func(p *corev1.Pod) {
		p.Spec.HostPID = true
		p.Spec.ShareProcessNamespace = ptr.To(true)
	}, []string{"Invalid value spec.securityContext.shareProcessNamespace: ShareProcessNamespace and HostPID cannot both be enabled"}},
	{"seccomp profiles", func(p *corev1.Pod) {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}}
		p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "x", SecurityContext: &corev1.SecurityContext{
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault, LocalhostProfile: ptr.To("p")}}}}
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: "Custom"}}
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d", Image: "x", SecurityContext: &corev1.SecurityContext{
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("../p")}}},
			corev1.Container{Name: "e", Image: "x", SecurityContext: &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{}}})
	}, []string{
		`Unsupported value spec.containers[0].securityContext.seccompProfile.type: supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
		"Invalid value spec.containers[1].securityContext.seccompProfile.localhostProfile: must not contain '..'",
		"Required value spec.containers[2].securityContext.seccompProfile.type: type is required when seccompProfile is set",
		"Invalid value spec.initContainers[0].securityContext.seccompProfile.localhostProfile: can only be set when seccomp type is Localhost",
		"Required value spec.securityContext.seccompProfile.localhostProfile: must be set when seccomp type is Localhost",
	}},
	{"appArmor profiles", func(p *corev1.Pod) {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost}}
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined, LocalhostProfile: ptr.To("p")}}
		p.Spec.Containers = append(p.Spec.Containers,
			corev1.Container{Name: "d", Image: "x", SecurityContext: &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To(" p")}}},
			corev1.Container{Name: "e", Image: "x", SecurityContext: &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{}}},
			corev1.Container{Name: "f", Image: "x", SecurityContext: &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: "Strict"}}})
	}, []string{
		"Invalid value spec.containers[0].securityContext.appArmorProfile.localhostProfile: can only be set when AppArmor type is Localhost",
		"Invalid value spec.containers[1].securityContext.appArmorProfile.localhostProfile: must not be padded with whitespace",
		"Required value spec.containers[2].securityContext.appArmorProfile.type: type is required when appArmorProfile is set",
		`Unsupported value spec.containers[3].securityContext.appArmorProfile.type: supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
		"Required value spec.securityContext.appArmorProfile.localhostProfile: must be set when AppArmor type is Localhost",
	}},
	{"container ids and procMount", containerSecurity(corev1.SecurityContext{RunAsUser: ptr.To(int64(-5)), RunAsGroup: ptr.To(int64(-1)),
		ProcMount: ptr.To(corev1.ProcMountType("Masked"))}), []string{
		"Invalid value spec.containers[0].securityContext.runAsUser: must be between 0 and 2147483647, inclusive",
		"Invalid value spec.containers[0].securityContext.runAsGroup: must be between 0 and 2147483647, inclusive",
		`Unsupported value spec.containers[0].securityContext.procMount: supported values: "Default", "Unmasked"`,
	}},
	{"unmasked proc needs a user namespace", containerSecurity(corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}), []string{
		"Invalid value spec.containers[0].securityContext.procMount: `hostUsers` must be false to use `Unmasked`",
	}},
	{"no escalation yet privileged", containerSecurity(corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Privileged: ptr.To(true),
		Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"CAP_SYS_ADMIN"}}}), []string{
		"Invalid value spec.containers[0].securityContext: cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
		"Invalid value spec.containers[0].securityContext: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
	}},
	{"own user namespace shares no host namespace", func(p *corev1.Pod) {
		p.Spec.HostUsers = ptr.To(false)
		p.Spec.HostNetwork = true
		p.Spec.HostPID = true
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}
	}, []string{
		"Forbidden spec.hostNetwork: when `pod.Spec.HostUsers` is false",
		"Forbidden spec.HostPID: when `pod.Spec.HostUsers` is false",
	}},
	{"os name", func(p *corev1.Pod) { p.Spec.OS = &corev1.PodOS{Name: "plan9"} }, []string{
		`Unsupported value spec.os: supported values: "linux", "windows"`,
	}},
	{"linux pod with windows options", func(p *corev1.Pod) {
		p.Spec.OS = &corev1.PodOS{Name: corev1.Linux}
		p.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("admin")}}
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{}}
	}, []string{
		"Forbidden spec.securityContext.windowsOptions: windows options cannot be set for a linux pod",
		"Forbidden spec.containers[0].securityContext.windowsOptions: windows options cannot be set for a linux pod",
	}},
	{"windows pod with linux fields", func(p *corev1.Pod) {
		p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
		p.Spec.HostPID = true
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To(int64(1)), FSGroup: ptr.To(int64(1))}
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(false), Capabilities: &corev1.Capabilities{}}
	}, []string{
		"Forbidden spec.hostPID: cannot be set for a windows pod",
		"Forbidden spec.securityContext.fsGroup: cannot be set for a windows pod",
		"Forbidden spec.securityContext.runAsUser: cannot be set for a windows pod",
		"Forbidden spec.containers[0].securityContext.capabilities: cannot be set for a windows pod",
		"Forbidden spec.containers[0].securityContext.privileged: cannot be set for a windows pod",
	}},
}

func TestPodSecurityValidation(t *testing.T) { runPodCases(t, securityCases) }

func windowsUser(name string) *corev1.SecurityContext {
	return &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To(name)}}
}

var windowsCases = []podCase{
	{"valid windows options", func(p *corev1.Pod) {
		p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
		p.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
			GMSACredentialSpecName: ptr.To("webapp-gmsa"), GMSACredentialSpec: ptr.To(`{"CmsPlugins":["ActiveDirectory"]}`), RunAsUserName: ptr.To(`CONTOSO\svc-web`)}}
		p.Spec.Containers[0].SecurityContext = windowsUser("ContainerUser")
	}, nil},
	{"run-as user names", func(p *corev1.Pod) {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
			GMSACredentialSpecName: ptr.To("Bad_Name"), GMSACredentialSpec: ptr.To("")}}
		p.Spec.Containers = []corev1.Container{
			{Name: "a", Image: "x", SecurityContext: windowsUser("")},
			{Name: "b", Image: "x", SecurityContext: windowsUser("a\\b\\c")},
			{Name: "c", Image: "x", SecurityContext: windowsUser("bad|domain\\...")},
			{Name: "d", Image: "x", SecurityContext: windowsUser("dom\\")},
			{Name: "e", Image: "x", SecurityContext: windowsUser("user@home")},
			{Name: "f", Image: "x", SecurityContext: windowsUser("tab\there")},
		}
	}, []string{
		"Invalid value spec.containers[0].securityContext.windowsOptions.runAsUserName: runAsUserName cannot be an empty string",
		"Invalid value spec.containers[1].securityContext.windowsOptions.runAsUserName: runAsUserName cannot contain more than one backslash",
		"Invalid value spec.containers[2].securityContext.windowsOptions.runAsUserName: runAsUserName's Domain doesn't match the NetBios nor the DNS format",
		"Invalid value spec.containers[2].securityContext.windowsOptions.runAsUserName: runAsUserName's User cannot contain only periods or spaces",
		"Invalid value spec.containers[3].securityContext.windowsOptions.runAsUserName: runAsUserName's User cannot be empty",
		`Invalid value spec.containers[4].securityContext.windowsOptions.runAsUserName: runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`,
		"Invalid value spec.containers[5].securityContext.windowsOptions.runAsUserName: runAsUserName cannot contain control characters",
		"Invalid value spec.securityContext.windowsOptions.gmsaCredentialSpecName: " + dns1123SubdomainMsg,
		"Invalid value spec.securityContext.windowsOptions.gmsaCredentialSpec: gmsaCredentialSpec cannot be an empty string",
	}},
	{"host-process pod", func(p *corev1.Pod) {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
		p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "x", SecurityContext: &corev1.SecurityContext{
			WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(false)}}}}
	}, []string{
		"Invalid value spec.initContainers[0].securityContext.windowsOptions.hostProcess: pod hostProcess value must be identical if both are specified, was true",
		"Invalid value spec: If pod contains any hostProcess containers then all containers must be HostProcess containers",
		"Invalid value spec.hostNetwork: hostNetwork must be true if pod contains any hostProcess containers",
	}},
}

func TestPodWindowsValidation(t *testing.T) { runPodCases(t, windowsCases) }
