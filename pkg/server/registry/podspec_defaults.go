package registry

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// defaultPodSpec applies kube's defaults for a PodSpec and the types in
// it, wherever a PodSpec appears (Pods, PodTemplates, and the workload
// kinds' templates): SetDefaults_PodSpec, _Container, _Probe, _Volume
// and the generated ones for ports and field references.
func defaultPodSpec(spec *corev1.PodSpec) {
	dropGatedFields(spec)
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr.To(int64(corev1.DefaultTerminationGracePeriodSeconds))
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		defaultContainer(&c)
		spec.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		// A tag of latest, or none, may name a different image on
		// each pull.
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		} else {
			c.ImagePullPolicy = corev1.PullIfNotPresent
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil && vf.FieldRef != nil && vf.FieldRef.APIVersion == "" {
			vf.FieldRef.APIVersion = "v1"
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	if c.Lifecycle != nil {
		for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHTTPGet(p.HTTPGet)
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

func defaultVolume(v *corev1.Volume) {
	if v.VolumeSource == (corev1.VolumeSource{}) {
		// A volume with no source is scratch space.
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	switch {
	case v.Secret != nil && v.Secret.DefaultMode == nil:
		v.Secret.DefaultMode = ptr.To(corev1.SecretVolumeSourceDefaultMode)
	case v.ConfigMap != nil && v.ConfigMap.DefaultMode == nil:
		v.ConfigMap.DefaultMode = ptr.To(corev1.ConfigMapVolumeSourceDefaultMode)
	case v.DownwardAPI != nil:
		if v.DownwardAPI.DefaultMode == nil {
			v.DownwardAPI.DefaultMode = ptr.To(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		defaultDownwardItems(v.DownwardAPI.Items)
	case v.Projected != nil:
		if v.Projected.DefaultMode == nil {
			v.Projected.DefaultMode = ptr.To(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for _, s := range v.Projected.Sources {
			if s.ServiceAccountToken != nil && s.ServiceAccountToken.ExpirationSeconds == nil {
				s.ServiceAccountToken.ExpirationSeconds = ptr.To(int64(3600))
			}
			if s.DownwardAPI != nil {
				defaultDownwardItems(s.DownwardAPI.Items)
			}
		}
	case v.HostPath != nil && v.HostPath.Type == nil:
		v.HostPath.Type = ptr.To(corev1.HostPathUnset)
	}
}

func defaultDownwardItems(items []corev1.DownwardAPIVolumeFile) {
	for _, it := range items {
		if it.FieldRef != nil && it.FieldRef.APIVersion == "" {
			it.FieldRef.APIVersion = "v1"
		}
	}
}

// defaultPod adds what kube defaults on a Pod only, not on a template
// (SetDefaults_Pod), and what its default admission plugins set on a
// create: Priority, DefaultTolerationSeconds, ServiceAccount.
func defaultPod(pod *corev1.Pod) {
	defaultPodSpec(&pod.Spec)
	// Limits without requests request the limits.
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			r := &cs[i].Resources
			if r.Limits == nil {
				continue
			}
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			for k, v := range r.Limits {
				if _, ok := r.Requests[k]; !ok {
					r.Requests[k] = v.DeepCopy()
				}
			}
		}
	}
	// kube's conversion keeps the deprecated serviceAccount equal to
	// serviceAccountName, reading it when the name is empty.
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = pod.Spec.DeprecatedServiceAccount
	}
	pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
	if pod.Spec.EnableServiceLinks == nil {
		pod.Spec.EnableServiceLinks = ptr.To(corev1.DefaultEnableServiceLinks)
	}
	if pod.Spec.HostNetwork {
		for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for i := range cs {
				for j := range cs[i].Ports {
					if cs[i].Ports[j].HostPort == 0 {
						cs[i].Ports[j].HostPort = cs[i].Ports[j].ContainerPort
					}
				}
			}
		}
	}
}

// admitPod is what kube-apiserver's default admission chain sets on a
// new pod: no PriorityClass means priority 0 (Priority), pods tolerate
// a not-ready or unreachable node for 300s (DefaultTolerationSeconds),
// and run as the namespace's default service account (ServiceAccount).
func admitPod(pod *corev1.Pod) {
	if pod.Spec.Priority == nil && pod.Spec.PriorityClassName == "" {
		pod.Spec.Priority = ptr.To(int32(0))
	}
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = ptr.To(corev1.PreemptLowerPriority)
	}
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		if !toleratesNoExecute(pod.Spec.Tolerations, key) {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{
				Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
				TolerationSeconds: ptr.To(int64(defaultTolerationSeconds)),
			})
		}
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = "default"
		pod.Spec.DeprecatedServiceAccount = "default"
	}
}

// defaultTolerationSeconds is kube-apiserver's
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds.
const defaultTolerationSeconds = 300

// toleratesNoExecute reports whether a toleration already covers the
// NoExecute taint key, in which case DefaultTolerationSeconds adds none.
func toleratesNoExecute(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		if (t.Key == key || t.Key == "") &&
			(t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute) {
			return true
		}
	}
	return false
}

// imageTag is the tag of an image reference as the kubelet reads it:
// "latest" when it has neither tag nor digest, "" for a digest alone.
func imageTag(image string) string {
	name, _, digested := strings.Cut(image, "@")
	last := name[strings.LastIndex(name, "/")+1:]
	if _, tag, ok := strings.Cut(last, ":"); ok {
		return tag
	}
	if digested {
		return ""
	}
	return "latest"
}
