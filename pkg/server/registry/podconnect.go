package registry

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Connect answers a pod's log, exec, attach and portforward
// subresources. Setpoint's nodes are simulated and start no processes:
// a log is empty once its container has started (as a quiet container's
// is), and exec, attach and port forwarding are refused with why, after
// the checks kube-apiserver makes of the container and the node.
func (podStrategy) Connect(obj map[string]any, sub Subresource, opts map[string][]string) ([]byte, error) {
	var pod corev1.Pod
	if errs := toTyped(obj, &pod); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	var container string
	if v := opts["container"]; len(v) > 0 {
		container = v[0]
	}
	if sub != SubresourcePortForward {
		c, err := podContainer(&pod, container)
		if err != nil {
			return nil, err
		}
		container = c
	}
	if pod.Spec.NodeName == "" {
		if sub == SubresourceLog {
			// kube-apiserver has nowhere to read from and answers an
			// empty log.
			return nil, nil
		}
		return nil, &BadRequestError{Message: fmt.Sprintf("pod %s does not have a host assigned", pod.Name)}
	}
	switch sub {
	case SubresourceLog:
		if reason, waiting := containerWaiting(&pod, container); waiting {
			return nil, &BadRequestError{Message: fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, pod.Name, reason)}
		}
		return nil, nil
	case SubresourcePortForward:
		return nil, &BadRequestError{Message: fmt.Sprintf(
			"cannot forward ports of pod %q: it runs on simulated node %q, which starts no processes", pod.Name, pod.Spec.NodeName)}
	}
	return nil, &BadRequestError{Message: fmt.Sprintf(
		"cannot %s container %q in pod %q: it runs on simulated node %q, which starts no processes", sub, container, pod.Name, pod.Spec.NodeName)}
}

// podContainer is the container a request names, or the pod's only one,
// with kube-apiserver's refusals.
func podContainer(pod *corev1.Pod, name string) (string, error) {
	var all []string
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			all = append(all, c.Name)
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		all = append(all, c.Name)
	}
	if name == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", &BadRequestError{Message: fmt.Sprintf("a container name must be specified for pod %s", pod.Name)}
		}
		return "", &BadRequestError{Message: fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod.Name, all)}
	}
	for _, c := range all {
		if c == name {
			return name, nil
		}
	}
	return "", &BadRequestError{Message: fmt.Sprintf("container %s is not valid for pod %s", name, pod.Name)}
}

// containerWaiting reports whether the container has not started yet,
// and the kubelet's reason.
func containerWaiting(pod *corev1.Pod, name string) (string, bool) {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, s := range list {
			if s.Name != name {
				continue
			}
			if s.State.Waiting != nil {
				return s.State.Waiting.Reason, true
			}
			return "", false
		}
	}
	return "ContainerCreating", true
}
