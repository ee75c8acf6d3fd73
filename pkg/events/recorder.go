package events

import (
	"context"
	"fmt"
	"log/slog"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Recorder records Events about objects on behalf of one component. Its
// methods never block and never fail: an Event that cannot be recorded
// is dropped, counted and logged. A nil *Recorder records nothing, so
// code under test may leave it out.
type Recorder struct {
	b      *Broadcaster
	source corev1.EventSource
}

// Event records an Event of eventtype (corev1.EventTypeNormal or
// EventTypeWarning) about obj. reason is a short UpperCamelCase word
// machines can match on; message is for people.
func (r *Recorder) Event(obj client.Object, eventtype, reason, message string) {
	r.record(obj, nil, eventtype, reason, message)
}

// Eventf is Event with a formatted message.
func (r *Recorder) Eventf(obj client.Object, eventtype, reason, format string, args ...any) {
	if r == nil {
		return
	}
	r.record(obj, nil, eventtype, reason, fmt.Sprintf(format, args...))
}

// AnnotatedEventf is Eventf with annotations on the Event itself.
func (r *Recorder) AnnotatedEventf(obj client.Object, annotations map[string]string, eventtype, reason, format string, args ...any) {
	if r == nil {
		return
	}
	r.record(obj, annotations, eventtype, reason, fmt.Sprintf(format, args...))
}

func (r *Recorder) record(obj client.Object, annotations map[string]string, eventtype, reason, message string) {
	if r == nil {
		return
	}
	b := r.b
	ctx := context.Background()
	ev := &corev1.Event{
		Type: eventtype, Reason: reason, Message: message,
		Source:              r.source,
		ReportingController: r.source.Component,
		ReportingInstance:   r.source.Host,
		Count:               1,
	}
	if eventtype != corev1.EventTypeNormal && eventtype != corev1.EventTypeWarning {
		b.drop(ctx, DropInvalid, ev, slog.LevelWarn, "event dropped: unsupported type")
		return
	}
	ref, err := reference(b.opts.Client.Scheme(), obj)
	if err != nil {
		b.drop(ctx, DropInvalid, ev, slog.LevelWarn, "event dropped: no reference to the object", "err", err)
		return
	}
	now := b.opts.Clock.Now()
	ev.InvolvedObject = ref
	// Events about cluster-scoped objects live in default, where
	// kubectl and client-go look for them.
	ev.Namespace = ref.Namespace
	if ev.Namespace == "" {
		ev.Namespace = metav1.NamespaceDefault
	}
	// The caller may reuse its map once this returns.
	ev.Annotations = maps.Clone(annotations)
	ev.FirstTimestamp = metav1.NewTime(now)
	ev.LastTimestamp = ev.FirstTimestamp

	// As client-go's correlator: similar Events combine first, then the
	// spam filter counts what is left.
	key, msg := b.similar.observe(aggKeyOf(ev), now)
	ev.Message = msg
	if !b.spam.allow(spamKeyOf(ev), now) {
		b.drop(ctx, DropSpam, ev, slog.LevelDebug, "event dropped: too many for this object")
		return
	}
	b.enqueue(&pending{event: ev, key: key, at: now})
}

// reference builds the involvedObject for obj. The kind comes from the
// object's TypeMeta when it has one (objects read from a server do, and
// unstructured ones always), else from the scheme by Go type.
func reference(scheme *runtime.Scheme, obj client.Object) (corev1.ObjectReference, error) {
	if obj == nil {
		return corev1.ObjectReference{}, fmt.Errorf("%w: nil object", ErrUnknownKind)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		if _, meta := obj.(*metav1.PartialObjectMetadata); meta {
			// The scheme would name the wrapper, not the kind it holds.
			return corev1.ObjectReference{}, fmt.Errorf("%w: metadata-only object without TypeMeta", ErrUnknownKind)
		}
		if scheme == nil {
			return corev1.ObjectReference{}, fmt.Errorf("%w: %T and no scheme", ErrUnknownKind, obj)
		}
		gvks, _, err := scheme.ObjectKinds(obj)
		if err != nil {
			return corev1.ObjectReference{}, fmt.Errorf("%w: %w", ErrUnknownKind, err)
		}
		gvk = gvks[0]
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return corev1.ObjectReference{
		APIVersion:      apiVersion,
		Kind:            kind,
		Namespace:       obj.GetNamespace(),
		Name:            obj.GetName(),
		UID:             obj.GetUID(),
		ResourceVersion: obj.GetResourceVersion(),
	}, nil
}
