package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Source is what an informer lists and watches: a kind in a scope.
type Source struct {
	GVK schema.GroupVersionKind
	// Namespace narrows to one namespace; "" is every namespace (and
	// the only choice for cluster-scoped kinds).
	Namespace string
	// LabelSelector and FieldSelector narrow further; the reflector puts
	// them on its requests.
	LabelSelector, FieldSelector string
	// MetadataOnly lists and watches PartialObjectMetadata.
	MetadataOnly bool
}

func (s Source) String() string {
	var b strings.Builder
	b.WriteString(s.GVK.GroupVersion().String())
	b.WriteString("/")
	b.WriteString(s.GVK.Kind)
	if s.MetadataOnly {
		b.WriteString("(metadata)")
	}
	if s.Namespace != "" {
		b.WriteString(" namespace=" + s.Namespace)
	}
	if s.LabelSelector != "" {
		b.WriteString(" labels=" + s.LabelSelector)
	}
	if s.FieldSelector != "" {
		b.WriteString(" fields=" + s.FieldSelector)
	}
	return b.String()
}

// NewListerWatcherFunc builds a ListerWatcher for a source's kind,
// namespace and representation (full objects or metadata only). It is how
// a Factory reaches a server without depending on any client.
type NewListerWatcherFunc func(Source) (ListerWatcher, error)

// FactoryOptions apply to every informer of a Factory.
type FactoryOptions struct {
	ResyncPeriod      time.Duration
	KeepManagedFields bool
	DisableWatchList  bool
	CheckMutations    bool
	OnMutation        func(error)
	// Compact keeps every informer's objects encoded (see
	// InformerOptions.Compact).
	Compact    bool
	Registerer prometheus.Registerer
	Clock      Clock
	Logger     *slog.Logger
	// Transforms rewrite the objects of a kind before they are cached,
	// as ReflectorOptions.Transform does, for every informer of that
	// kind but the metadata-only ones: a program that reads a few fields
	// of a numerous kind caches only those. Every reader of the kind
	// through the factory sees the rewritten objects.
	Transforms map[schema.GroupVersionKind]func(Object) (Object, error)
	// FieldSelectors narrow every informer of a kind but the
	// metadata-only ones to the objects a field selector matches, as
	// controller-runtime's cache ByObject.Field does: a program that
	// needs one object of a numerous kind watches that one alone, and
	// the server sends it nothing else. Every reader of the kind through
	// the factory sees only those objects.
	FieldSelectors map[schema.GroupVersionKind]string
}

// Factory shares informers: every consumer that asks for the same Source
// gets the same Informer, so one list and one watch serve them all.
// Informers asked for while the factory runs start at once, so a program
// can begin watching a kind without a restart.
type Factory struct {
	newLW NewListerWatcherFunc
	opts  FactoryOptions

	mu        sync.Mutex
	informers map[Source]sharedInformer
	running   map[Source]run  // the informers started
	ctx       context.Context // while Run runs
	ran       bool
	wg        sync.WaitGroup
}

// sharedInformer is an *Informer[T] of any T.
type sharedInformer interface {
	Syncer
	Name() string
	LastError() error
	Run(ctx context.Context) error
}

// NewFactory returns a factory that reaches the server through newLW.
func NewFactory(newLW NewListerWatcherFunc, opts FactoryOptions) *Factory {
	return &Factory{newLW: newLW, opts: opts, informers: map[Source]sharedInformer{}, running: map[Source]run{}}
}

// InformerFor returns the factory's informer for src, creating it on first
// use. Every caller for one Source must use the same T.
func InformerFor[T Object](f *Factory, src Source) (*Informer[T], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if si, ok := f.informers[src]; ok {
		inf, ok := si.(*Informer[T])
		if !ok {
			var zero T
			return nil, fmt.Errorf("cache: %s is already cached as %T, not %T", src, si, zero)
		}
		return inf, nil
	}
	if f.ran && f.ctx == nil {
		return nil, errors.New("cache: factory has stopped")
	}
	lw, err := f.newLW(src)
	if err != nil {
		return nil, fmt.Errorf("cache: %s: %w", src, err)
	}
	inf := NewInformer(lw, InformerOptions[T]{
		ReflectorOptions: ReflectorOptions[T]{
			Name:              src.String(),
			LabelSelector:     src.LabelSelector,
			FieldSelector:     fieldSelectorFor(f.opts.FieldSelectors, src),
			DisableWatchList:  f.opts.DisableWatchList,
			KeepManagedFields: f.opts.KeepManagedFields,
			Clock:             f.opts.Clock,
			Logger:            f.opts.Logger,
			Transform:         transformFor[T](f.opts.Transforms, src),
		},
		ResyncPeriod:   f.opts.ResyncPeriod,
		CheckMutations: f.opts.CheckMutations,
		OnMutation:     f.opts.OnMutation,
		Compact:        f.opts.Compact,
		Registerer:     f.opts.Registerer,
	})
	f.informers[src] = inf
	if f.ctx != nil {
		f.start(src, inf)
	}
	return inf, nil
}

// fieldSelectorFor is src's field selector with its kind's in fs, when
// it has one, as a further requirement.
func fieldSelectorFor(fs map[schema.GroupVersionKind]string, src Source) string {
	sel := fs[src.GVK]
	switch {
	case sel == "" || src.MetadataOnly:
		return src.FieldSelector
	case src.FieldSelector == "":
		return sel
	}
	return sel + "," + src.FieldSelector
}

// transformFor returns the transform of src's kind in ts as one of T,
// or nil when it has none.
func transformFor[T Object](ts map[schema.GroupVersionKind]func(Object) (Object, error), src Source) func(T) (T, error) {
	tf := ts[src.GVK]
	if tf == nil || src.MetadataOnly {
		return nil
	}
	return func(obj T) (T, error) {
		var zero T
		out, err := tf(obj)
		if err != nil {
			return zero, err
		}
		t, ok := out.(T)
		if !ok {
			return zero, fmt.Errorf("cache: the transform of %s returned %T, not %T", src.GVK, out, zero)
		}
		return t, nil
	}
}

// ExistingInformer returns the factory's informer for src if one was
// asked for, without creating one: for a reader that can use a cache
// that exists but must not start watching a kind for it.
func ExistingInformer[T Object](f *Factory, src Source) (*Informer[T], bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	inf, ok := f.informers[src].(*Informer[T])
	return inf, ok
}

// MetadataInformerFor is InformerFor of src's kind as
// PartialObjectMetadata: names, labels, owners and versions without the
// bodies, for controllers that only need to know what exists.
func MetadataInformerFor(f *Factory, src Source) (*Informer[*metav1.PartialObjectMetadata], error) {
	src.MetadataOnly = true
	return InformerFor[*metav1.PartialObjectMetadata](f, src)
}

// Run runs every informer, including those asked for later, until ctx
// ends; then it waits for them and returns nil. It runs once.
func (f *Factory) Run(ctx context.Context) error {
	f.mu.Lock()
	if f.ran {
		f.mu.Unlock()
		return errors.New("cache: factory already ran")
	}
	f.ran, f.ctx = true, ctx
	for src, inf := range f.informers {
		f.start(src, inf)
	}
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	f.ctx = nil
	f.mu.Unlock()
	f.wg.Wait()
	return nil
}

// start runs inf until Run's context ends or src is forgotten; f.mu
// is held.
func (f *Factory) start(src Source, inf sharedInformer) {
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	f.running[src] = run{cancel: cancel, done: done}
	f.wg.Go(func() {
		defer close(done)
		defer cancel()
		if err := inf.Run(ctx); err != nil {
			f.logger().Error("informer failed", "informer", inf.Name(), "err", err)
		}
	})
}

// run is a started informer: how to stop it, and when it has.
type run struct {
	cancel context.CancelFunc
	done   <-chan struct{}
}

func (f *Factory) logger() *slog.Logger {
	if f.opts.Logger != nil {
		return f.opts.Logger
	}
	return slog.Default()
}

// Forget stops the informer for src and drops it, so the next
// InformerFor starts a new one. It is for a kind that is no longer
// served (its CRD was deleted), whose informer could only fail and
// retry; handlers still registered on it hear nothing more. It reports
// whether there was one.
func (f *Factory) Forget(src Source) bool {
	f.mu.Lock()
	_, ok := f.informers[src]
	r, started := f.running[src]
	delete(f.informers, src)
	delete(f.running, src)
	f.mu.Unlock()
	if started {
		// Wait, so a new informer for src never overlaps the old one
		// (their metrics share a name).
		r.cancel()
		<-r.done
	}
	return ok
}

// WaitForSync waits until every informer asked for so far has synced, or
// ctx ends; the error then says which did not and why.
func (f *Factory) WaitForSync(ctx context.Context) error {
	f.mu.Lock()
	syncers := make([]Syncer, 0, len(f.informers))
	for _, inf := range f.informers {
		syncers = append(syncers, inf)
	}
	f.mu.Unlock()
	return WaitForSync(ctx, syncers...)
}
