package nodeagent

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The annotations that program a pod's simulated containers. They are
// read on every step, so changing one changes what happens next.
const (
	// AnnotationExitAfter makes each regular container exit this long
	// (a Go duration, "30s") after it started.
	AnnotationExitAfter = "setpoint.dev/exit-after"
	// AnnotationExitCode is the exit code of those exits; 0 if absent.
	AnnotationExitCode = "setpoint.dev/exit-code"
	// AnnotationCrashLoop, "true", makes each regular container fail with
	// exit code 1 as soon as it starts, so a restarting pod crash-loops.
	AnnotationCrashLoop = "setpoint.dev/crash-loop"
	// AnnotationNeverReady, "true", keeps every regular container
	// running but never ready.
	AnnotationNeverReady = "setpoint.dev/never-ready"
	// AnnotationImagePullError makes every image pull fail; its value
	// is the registry's error message ("true" gives a not-found one).
	AnnotationImagePullError = "setpoint.dev/image-pull-error"
	// AnnotationContainers, a comma-separated list of container names,
	// limits the behaviour above to those containers (an init
	// container named here takes only the pull error); absent, it
	// applies to all.
	AnnotationContainers = "setpoint.dev/containers"
)

// Behaviour is what a pod's annotations ask of its regular containers;
// init containers always complete at once with exit code 0, unless the
// image pull fails.
type Behaviour struct {
	// ExitAfter, when set, is how long a container runs before it exits
	// with ExitCode.
	ExitAfter *time.Duration
	ExitCode  int32
	// NeverReady keeps running containers unready.
	NeverReady bool
	// PullError, when not empty, fails every pull with this message.
	PullError string
	// Containers, when not empty, names the only containers the
	// behaviour applies to.
	Containers []string
}

// applies reports whether the behaviour is for the named container.
func (b Behaviour) applies(container string) bool {
	return len(b.Containers) == 0 || slices.Contains(b.Containers, container)
}

// AnnotationError says which annotation could not be read, and why.
type AnnotationError struct {
	Key, Value string
	Err        error
}

func (e *AnnotationError) Error() string {
	return fmt.Sprintf("annotation %s=%q: %v", e.Key, e.Value, e.Err)
}

func (e *AnnotationError) Unwrap() error { return e.Err }

// defaultPullError is the message of a pull that fails for "true".
const defaultPullError = "not found"

// ParseBehaviour reads the behaviour annotations. A malformed one is an
// *AnnotationError; the others still apply.
func ParseBehaviour(annotations map[string]string) (Behaviour, error) {
	var b Behaviour
	var firstErr error
	fail := func(k, v string, err error) {
		if firstErr == nil {
			firstErr = &AnnotationError{Key: k, Value: v, Err: err}
		}
	}
	if v, ok := annotations[AnnotationExitAfter]; ok {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			fail(AnnotationExitAfter, v, err)
		case d < 0:
			fail(AnnotationExitAfter, v, fmt.Errorf("must not be negative"))
		default:
			b.ExitAfter = &d
		}
	}
	if v, ok := annotations[AnnotationExitCode]; ok {
		c, err := strconv.ParseInt(v, 10, 32)
		if err != nil || c < 0 || c > 255 {
			fail(AnnotationExitCode, v, fmt.Errorf("must be an integer from 0 to 255"))
		} else {
			b.ExitCode = int32(c)
		}
	}
	if v, ok := annotations[AnnotationCrashLoop]; ok {
		on, err := strconv.ParseBool(v)
		if err != nil {
			fail(AnnotationCrashLoop, v, err)
		} else if on {
			zero := time.Duration(0)
			b.ExitAfter, b.ExitCode = &zero, 1
		}
	}
	if v, ok := annotations[AnnotationNeverReady]; ok {
		on, err := strconv.ParseBool(v)
		if err != nil {
			fail(AnnotationNeverReady, v, err)
		}
		b.NeverReady = on
	}
	if v, ok := annotations[AnnotationImagePullError]; ok {
		switch on, err := strconv.ParseBool(v); {
		case err != nil:
			b.PullError = strings.TrimSpace(v)
		case on:
			b.PullError = defaultPullError
		}
	}
	if v, ok := annotations[AnnotationContainers]; ok {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				b.Containers = append(b.Containers, name)
			}
		}
	}
	return b, firstErr
}
