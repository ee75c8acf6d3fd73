package nodeagent

import (
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Env is what a step knows beyond the pod: the time, and the addresses
// the caller gives it.
type Env struct {
	Now time.Time
	// HostIP is the node's InternalIP.
	HostIP string
	// PodIP is the address the caller reserved for a pod that has none
	// yet; a pod on the host network takes HostIP instead.
	PodIP string
	// Present reports whether the node holds an image already, so that
	// a container's first start with pull policy IfNotPresent records
	// "already present on machine" instead of a pull; nil holds none.
	Present func(image string) bool
}

// Event is an Event the kubelet would record about the pod.
type Event struct {
	Type, Reason, Message string
}

// Step is the outcome of Advance: the pod's status now, and when to look
// again.
type Step struct {
	Status corev1.PodStatus
	// Wait is how long until the next thing happens to the pod on its
	// own (a readiness delay ends, a container exits, a back-off ends);
	// 0 when nothing will.
	Wait time.Duration
	// Events happened during the step, in order.
	Events []Event
	// Delete says the pod is being deleted and its containers are now
	// stopped: the kubelet would delete it for good.
	Delete bool
}

// Advance takes a pod bound to a simulated node from its current status
// to what the kubelet would report at env.Now. It is pure: the pod is
// not modified, and the same inputs give the same step.
func Advance(pod *corev1.Pod, env Env, b Behaviour) Step {
	s := &stepper{pod: pod, now: env.Now, b: b, st: *pod.Status.DeepCopy(), present: env.Present}
	if pod.DeletionTimestamp != nil {
		s.kill()
		return s.result(true)
	}
	if s.st.Phase == corev1.PodSucceeded || s.st.Phase == corev1.PodFailed {
		return Step{Status: s.st}
	}
	if s.st.StartTime == nil {
		s.admit(env)
	}
	initialized, initFailed := s.runInit()
	s.runMain(initialized)
	s.st.Phase = s.phase(initialized, initFailed, pod.Spec.RestartPolicy)
	s.setConditions(initialized)
	return s.result(false)
}

// stepper carries one Advance.
type stepper struct {
	pod    *corev1.Pod
	now    time.Time
	b      Behaviour
	st     corev1.PodStatus
	wake   time.Time
	events []Event
	// present is Env.Present.
	present func(image string) bool
}

func (s *stepper) result(del bool) Step {
	out := Step{Status: s.st, Events: s.events, Delete: del}
	if !del && !s.wake.IsZero() && s.wake.After(s.now) {
		out.Wait = s.wake.Sub(s.now)
	}
	return out
}

func (s *stepper) wakeAt(t time.Time) {
	if s.wake.IsZero() || t.Before(s.wake) {
		s.wake = t
	}
}

func (s *stepper) event(typ, reason, format string, args ...any) {
	s.events = append(s.events, Event{Type: typ, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// admit is the kubelet accepting the pod: its sandbox gets an address
// and the pod its start time.
func (s *stepper) admit(env Env) {
	now := metav1.NewTime(s.now)
	s.st.StartTime = &now
	s.st.Phase = corev1.PodPending
	s.st.HostIP = env.HostIP
	s.st.HostIPs = []corev1.HostIP{{IP: env.HostIP}}
	ip := env.PodIP
	if s.pod.Spec.HostNetwork {
		ip = env.HostIP
	}
	if ip != "" {
		s.st.PodIP = ip
		s.st.PodIPs = []corev1.PodIP{{IP: ip}}
	}
}

// rules say how one container behaves.
type rules struct {
	exitAfter  *time.Duration
	exitCode   int32
	neverReady bool
	pullError  string
	init       bool // a non-sidecar init container: never ready while it runs
	restart    func(exitCode int32) bool
}

func (s *stepper) mainRules(c *corev1.Container) rules {
	policy := s.pod.Spec.RestartPolicy
	r := rules{restart: func(code int32) bool {
		return policy == corev1.RestartPolicyAlways || (policy == corev1.RestartPolicyOnFailure && code != 0)
	}}
	if s.b.applies(c.Name) {
		r.exitAfter, r.exitCode, r.neverReady, r.pullError = s.b.ExitAfter, s.b.ExitCode, s.b.NeverReady, s.b.PullError
	}
	return r
}

func (s *stepper) initRules(c *corev1.Container) rules {
	if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
		// A sidecar runs beside the regular containers and always
		// restarts.
		return rules{restart: func(int32) bool { return true }, pullError: s.pullErrorFor(c)}
	}
	zero := time.Duration(0)
	never := s.pod.Spec.RestartPolicy == corev1.RestartPolicyNever
	return rules{exitAfter: &zero, init: true, pullError: s.pullErrorFor(c),
		restart: func(code int32) bool { return code != 0 && !never }}
}

// pullErrorFor is the pull error of an init container's image: init
// containers take no behaviour but a failing pull.
func (s *stepper) pullErrorFor(c *corev1.Container) string {
	if s.b.applies(c.Name) {
		return s.b.PullError
	}
	return ""
}

func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// runInit runs the init containers in order: each starts once the one
// before it completed (or, for a sidecar, started). It reports whether
// all are done, and whether one failed for good.
func (s *stepper) runInit() (initialized, failed bool) {
	specs := s.pod.Spec.InitContainers
	statuses := make([]corev1.ContainerStatus, len(specs))
	// Once a regular container ran, the pod stays initialized, and its
	// sidecars keep running (and restarting) beside it.
	ranBefore := slices.ContainsFunc(s.st.ContainerStatuses, func(cs corev1.ContainerStatus) bool { return cs.ContainerID != "" })
	blocked := false
	for i := range specs {
		c := &specs[i]
		cs := s.statusOf(s.st.InitContainerStatuses, c, "PodInitializing")
		if !blocked || ranBefore {
			s.advance(&cs, c, s.initRules(c))
		}
		if !isSidecar(c) && cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0 {
			// A regular init container that succeeded counts as ready.
			cs.Ready = true
		}
		statuses[i] = cs
		done := isSidecar(c) && cs.Started != nil && *cs.Started ||
			cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0
		if cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0 && !s.initRules(c).restart(cs.State.Terminated.ExitCode) {
			failed = true
		}
		if !done {
			blocked = true
		}
	}
	if len(specs) > 0 {
		s.st.InitContainerStatuses = statuses
	}
	return !blocked || ranBefore, failed
}

// runMain runs the regular containers once the pod is initialized; until
// then they wait.
func (s *stepper) runMain(initialized bool) {
	specs := s.pod.Spec.Containers
	statuses := make([]corev1.ContainerStatus, len(specs))
	waitReason := "ContainerCreating"
	if len(s.pod.Spec.InitContainers) > 0 {
		waitReason = "PodInitializing"
	}
	for i := range specs {
		cs := s.statusOf(s.st.ContainerStatuses, &specs[i], waitReason)
		if initialized {
			s.advance(&cs, &specs[i], s.mainRules(&specs[i]))
		}
		statuses[i] = cs
	}
	// The kubelet lists regular containers by name.
	sort.SliceStable(statuses, func(i, j int) bool { return statuses[i].Name < statuses[j].Name })
	s.st.ContainerStatuses = statuses
}

// statusOf is c's status so far, or a waiting one for a container the
// kubelet has not created.
func (s *stepper) statusOf(list []corev1.ContainerStatus, c *corev1.Container, waitReason string) corev1.ContainerStatus {
	for _, cs := range list {
		if cs.Name == c.Name {
			return *cs.DeepCopy()
		}
	}
	f := false
	return corev1.ContainerStatus{
		Name: c.Name, Image: c.Image, Started: &f,
		State:        corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waitReason}},
		VolumeMounts: mountStatuses(c),
	}
}

func mountStatuses(c *corev1.Container) []corev1.VolumeMountStatus {
	var out []corev1.VolumeMountStatus
	for _, m := range c.VolumeMounts {
		vm := corev1.VolumeMountStatus{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly}
		if m.ReadOnly {
			d := corev1.RecursiveReadOnlyDisabled
			vm.RecursiveReadOnly = &d
		}
		out = append(out, vm)
	}
	return out
}

// maxTransitions bounds the transitions of one container in one step; a
// container that exits at once goes through start, exit, restart, exit
// and back-off, which is fewer.
const maxTransitions = 8

// advance moves one container's status to s.now.
func (s *stepper) advance(cs *corev1.ContainerStatus, c *corev1.Container, r rules) {
	for range maxTransitions {
		switch st := cs.State; {
		case st.Running != nil:
			if r.exitAfter != nil {
				exitAt := st.Running.StartedAt.Add(*r.exitAfter)
				if !s.now.Before(exitAt) {
					s.terminate(cs, r.exitCode, exitAt)
					continue
				}
				s.wakeAt(exitAt)
			}
			s.probe(cs, c, r)
			return
		case st.Terminated != nil:
			if !r.restart(st.Terminated.ExitCode) {
				return
			}
			cs.LastTerminationState = corev1.ContainerState{Terminated: st.Terminated}
			if restartDelay(cs.RestartCount) == 0 {
				s.start(cs, c, r)
				continue
			}
			delay := restartDelay(cs.RestartCount)
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "CrashLoopBackOff",
				Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)",
					delay, c.Name, s.pod.Name, s.pod.Namespace, s.pod.UID),
			}}
			s.event(corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container %s in pod %s_%s(%s)",
				c.Name, s.pod.Name, s.pod.Namespace, s.pod.UID)
		case st.Waiting != nil && st.Waiting.Reason == "CrashLoopBackOff" && cs.LastTerminationState.Terminated != nil:
			due := cs.LastTerminationState.Terminated.FinishedAt.Add(restartDelay(cs.RestartCount))
			if s.now.Before(due) {
				s.wakeAt(due)
				return
			}
			s.start(cs, c, r)
		case st.Waiting != nil && st.Waiting.Reason == "ErrImagePull":
			if r.pullError == "" {
				s.start(cs, c, r)
				continue
			}
			cs.State.Waiting = &corev1.ContainerStateWaiting{
				Reason: "ImagePullBackOff", Message: fmt.Sprintf("Back-off pulling image %q", c.Image),
			}
			s.event(corev1.EventTypeNormal, "BackOff", "Back-off pulling image %q", c.Image)
			s.event(corev1.EventTypeWarning, "Failed", "Error: ImagePullBackOff")
			return
		case st.Waiting != nil && st.Waiting.Reason == "ImagePullBackOff" && r.pullError != "":
			return
		default:
			// Not created yet, or created again once its image pulls.
			if r.pullError != "" {
				s.pullFailed(cs, c, r.pullError)
				return
			}
			s.start(cs, c, r)
		}
	}
}

// pullBackOff is how long a failed pull shows as ErrImagePull before the
// kubelet reports the back-off.
const pullBackOff = time.Second

func (s *stepper) pullFailed(cs *corev1.ContainerStatus, c *corev1.Container, pullError string) {
	msg := fmt.Sprintf("failed to pull and unpack image %q: %s", normalizeImage(c.Image), pullError)
	cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: msg}}
	s.event(corev1.EventTypeNormal, "Pulling", "Pulling image %q", c.Image)
	s.event(corev1.EventTypeWarning, "Failed", "Failed to pull image %q: %s", c.Image, msg)
	s.event(corev1.EventTypeWarning, "Failed", "Error: ErrImagePull")
	s.wakeAt(s.now.Add(pullBackOff))
}

// start creates and starts a run of the container.
func (s *stepper) start(cs *corev1.ContainerStatus, c *corev1.Container, r rules) {
	ranBefore := cs.ContainerID != ""
	if ranBefore {
		cs.RestartCount++
	}
	// As the kubelet's image manager: Always pulls every start; Never
	// and IfNotPresent use the node's copy, which a restart always has.
	pull := c.ImagePullPolicy == corev1.PullAlways ||
		c.ImagePullPolicy != corev1.PullNever && !ranBefore && (s.present == nil || !s.present(c.Image))
	if pull {
		s.event(corev1.EventTypeNormal, "Pulling", "Pulling image %q", c.Image)
		s.event(corev1.EventTypeNormal, "Pulled", "Successfully pulled image %q in %s (%s including waiting). Image size: %d bytes.",
			c.Image, time.Duration(0), time.Duration(0), imageSize(c.Image))
	} else {
		s.event(corev1.EventTypeNormal, "Pulled", "Container image %q already present on machine", c.Image)
	}
	cs.Image = normalizeImage(c.Image)
	cs.ImageID = imageID(c.Image)
	cs.ContainerID = containerID(string(s.pod.UID), c.Name, cs.RestartCount)
	cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(s.now)}}
	s.event(corev1.EventTypeNormal, "Created", "Created container: %s", c.Name)
	s.event(corev1.EventTypeNormal, "Started", "Started container %s", c.Name)
	s.probe(cs, c, r)
}

// probe sets started and ready of a running container as its probes
// would: a startup probe succeeds after its initial delay, a readiness
// probe after its own once the container has started.
func (s *stepper) probe(cs *corev1.ContainerStatus, c *corev1.Container, r rules) {
	startedAt := cs.State.Running.StartedAt.Time
	startedBy := startedAt
	if c.StartupProbe != nil {
		startedBy = startedBy.Add(time.Duration(c.StartupProbe.InitialDelaySeconds) * time.Second)
	}
	started := !s.now.Before(startedBy)
	cs.Started = &started
	if !started {
		s.wakeAt(startedBy)
	}
	readyBy := startedBy
	if c.ReadinessProbe != nil {
		readyBy = later(readyBy, startedAt.Add(time.Duration(c.ReadinessProbe.InitialDelaySeconds)*time.Second))
	}
	cs.Ready = false
	switch {
	case r.init || r.neverReady:
	case s.now.Before(readyBy):
		s.wakeAt(readyBy)
	default:
		cs.Ready = true
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// terminate ends the container's run with code at the given time.
func (s *stepper) terminate(cs *corev1.ContainerStatus, code int32, at time.Time) {
	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	startedAt := metav1.Time{}
	if cs.State.Running != nil {
		startedAt = cs.State.Running.StartedAt
	}
	cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: reason, StartedAt: startedAt, FinishedAt: metav1.NewTime(at), ContainerID: cs.ContainerID,
	}}
	f := false
	cs.Started, cs.Ready = &f, false
}

// restartDelay is the kubelet's crash loop back-off before the restart
// that follows restartCount restarts: none before the first, then 10 s
// doubling up to 5 min.
func restartDelay(restartCount int32) time.Duration {
	if restartCount <= 0 {
		return 0
	}
	d := 10 * time.Second
	for i := int32(1); i < restartCount && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// kill stops every running container of a pod being deleted, as the
// kubelet does before it removes the pod; the simulated processes stop
// on SIGTERM at once.
func (s *stepper) kill() {
	stop := func(list []corev1.ContainerStatus) {
		for i := range list {
			if list[i].State.Running != nil {
				s.event(corev1.EventTypeNormal, "Killing", "Stopping container %s", list[i].Name)
				s.terminate(&list[i], 0, s.now)
			}
		}
	}
	stop(s.st.InitContainerStatuses)
	stop(s.st.ContainerStatuses)
	if s.st.Phase == corev1.PodSucceeded || s.st.Phase == corev1.PodFailed || s.st.StartTime == nil {
		return
	}
	// A deleted pod does not restart: its phase is final once its
	// containers stopped.
	s.st.Phase = s.phase(true, false, corev1.RestartPolicyNever)
	if s.st.Phase == corev1.PodSucceeded || s.st.Phase == corev1.PodFailed {
		s.setConditions(true)
	}
}
