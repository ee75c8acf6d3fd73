package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// LockClient is what ForLife needs of a client; *client.Client has it.
type LockClient interface {
	Get(ctx context.Context, key types.NamespacedName, obj client.Object) error
	Create(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error
}

// Environment variables a Pod sets for itself (through the downward API)
// to tell ForLife who it is.
const (
	EnvPodName      = "POD_NAME"
	EnvPodNamespace = "POD_NAMESPACE"
)

// Default waits between a waiting candidate's looks at the lock:
// operator-lib's, doubling from one second to sixteen.
const (
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = 16 * time.Second
)

// ForLifeConfig says which lock to take and on behalf of which Pod.
type ForLifeConfig struct {
	// Client reads and writes the lock and reads Pods.
	Client LockClient
	// Namespace holds the lock and the Pod; empty is $POD_NAMESPACE.
	Namespace string
	// Name names the lock ConfigMap; required.
	Name string
	// PodName is the Pod that will own the lock; empty is $POD_NAME.
	PodName string
	// PodUID is that Pod's uid; empty reads it from the Pod. The uid,
	// not the name, is what garbage collection and the staleness check
	// go by: a Pod recreated under the same name is another owner.
	PodUID types.UID

	// InitialBackoff and MaxBackoff bound the waits between attempts;
	// zero takes the defaults.
	InitialBackoff, MaxBackoff time.Duration

	Clock      Clock
	Logger     *slog.Logger
	Registerer prometheus.Registerer
	// MetricName is the leader_election_master_status name label; empty
	// is Name.
	MetricName string
}

// ForLife is operator-lib's leader for life: the lock is a ConfigMap
// whose ownerReference is the leader's Pod. The leader never renews and
// never steps down; the lock goes when the Pod goes, deleted by the
// garbage collector. There is never a second leader, because nothing but
// the owner's end frees the lock; the price is failover that waits for
// the Pod to be deleted.
//
// A waiting candidate also frees a lock whose owner is provably not
// running, which garbage collection would not notice: the owner Pod is
// gone (collection is slow, or absent, as on Setpoint's server today), was
// replaced by a Pod with another uid, or was evicted (phase Failed,
// reason Evicted: its containers have stopped, but an evicted Pod object
// stays until someone deletes it). The delete carries the lock's uid and
// resourceVersion as preconditions, so it can only delete the stale lock
// it judged, never a new one. When Pods cannot be read (no permission,
// or a server that does not serve them) nothing is judged stale.
type ForLife struct {
	cfg     ForLifeConfig
	clock   Clock
	log     *slog.Logger
	gauge   prometheus.Gauge
	running atomic.Bool

	mu     sync.Mutex
	leader bool
}

// NewForLife fills cfg's defaults from the environment and checks it.
func NewForLife(cfg ForLifeConfig) (*ForLife, error) {
	if cfg.Namespace == "" {
		cfg.Namespace = os.Getenv(EnvPodNamespace)
	}
	if cfg.PodName == "" {
		cfg.PodName = os.Getenv(EnvPodName)
	}
	if cfg.InitialBackoff == 0 {
		cfg.InitialBackoff = DefaultInitialBackoff
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MetricName == "" {
		cfg.MetricName = cfg.Name
	}
	switch {
	case cfg.Client == nil:
		return nil, &ConfigError{"Client", "is required"}
	case cfg.Name == "":
		return nil, &ConfigError{"Name", "is required"}
	case cfg.Namespace == "":
		return nil, &ConfigError{"Namespace", "is required (or $" + EnvPodNamespace + ")"}
	case cfg.PodName == "":
		return nil, &ConfigError{"PodName", "is required (or $" + EnvPodName + ")"}
	case cfg.InitialBackoff < 0 || cfg.MaxBackoff < cfg.InitialBackoff:
		return nil, &ConfigError{"InitialBackoff and MaxBackoff", "must satisfy 0 < InitialBackoff <= MaxBackoff"}
	}
	gauge, err := statusGauge(cfg.Registerer, cfg.MetricName)
	if err != nil {
		return nil, err
	}
	return &ForLife{
		cfg:   cfg,
		clock: cfg.Clock,
		log:   cfg.Logger.With("lock", cfg.Namespace+"/"+cfg.Name, "pod", cfg.PodName),
		gauge: gauge,
	}, nil
}

// IsLeader reports whether Become has succeeded.
func (f *ForLife) IsLeader() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leader
}

// Become blocks until this Pod holds the lock, then returns nil: the
// process leads for the rest of its Pod's life. It returns ctx's error if
// ctx ends first, and an error at once if the Pod's uid cannot be
// learned. It runs once; a second call returns ErrRunning.
func (f *ForLife) Become(ctx context.Context) error {
	if !f.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	owner, err := f.owner(ctx)
	if err != nil {
		return err
	}
	f.gauge.Set(0)
	key := types.NamespacedName{Namespace: f.cfg.Namespace, Name: f.cfg.Name}
	backoff := f.cfg.InitialBackoff
	var waitingFor types.UID
	for {
		lock := &corev1.ConfigMap{}
		err := f.cfg.Client.Get(ctx, key, lock)
		switch {
		case err == nil && ownerUID(lock) == owner.UID:
			// The process restarted inside the Pod that holds the lock.
			return f.won()
		case err == nil:
			if why := f.stale(ctx, lock); why != "" && f.deleteStale(ctx, lock, why) {
				continue // the lock is gone: try to take it at once
			}
			if uid := ownerUID(lock); uid != waitingFor {
				waitingFor = uid
				f.log.Info("waiting for the leader to go", "leader", ownerName(lock))
			}
		case client.IsNotFound(err):
			err := f.cfg.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Namespace: key.Namespace, Name: key.Name,
				OwnerReferences: []metav1.OwnerReference{owner},
			}})
			if err == nil {
				return f.won()
			}
			if client.IsAlreadyExists(err) {
				continue // another candidate won; look at its lock
			}
			if ctx.Err() == nil {
				f.log.Info("cannot create the leader lock; retrying", "err", err)
			}
		default:
			if ctx.Err() == nil {
				f.log.Info("cannot read the leader lock; retrying", "err", err)
			}
		}
		wait := backoff + time.Duration(rand.Float64()*0.2*float64(backoff))
		if !sleep(f.clock, wait, ctx.Done()) {
			return ctx.Err()
		}
		backoff = min(2*backoff, f.cfg.MaxBackoff)
	}
}

func (f *ForLife) won() error {
	f.mu.Lock()
	f.leader = true
	f.mu.Unlock()
	f.gauge.Set(1)
	f.log.Info("became leader for life")
	return nil
}

// owner is the ownerReference the lock gets.
func (f *ForLife) owner(ctx context.Context) (metav1.OwnerReference, error) {
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: f.cfg.PodName, UID: f.cfg.PodUID}
	if ref.UID != "" {
		return ref, nil
	}
	pod := &corev1.Pod{}
	if err := f.cfg.Client.Get(ctx, types.NamespacedName{Namespace: f.cfg.Namespace, Name: f.cfg.PodName}, pod); err != nil {
		return ref, fmt.Errorf("leaderelection: reading this process's Pod for its uid: %w", err)
	}
	ref.UID = pod.UID
	return ref, nil
}

// podOwner is the lock's owning Pod, nil when it has none (a lock some
// other tool made: not ours to judge).
func podOwner(lock *corev1.ConfigMap) *metav1.OwnerReference {
	for i, r := range lock.OwnerReferences {
		if r.APIVersion == "v1" && r.Kind == "Pod" && r.UID != "" {
			return &lock.OwnerReferences[i]
		}
	}
	return nil
}

func ownerUID(lock *corev1.ConfigMap) types.UID {
	if r := podOwner(lock); r != nil {
		return r.UID
	}
	return ""
}

func ownerName(lock *corev1.ConfigMap) string {
	if r := podOwner(lock); r != nil {
		return r.Name
	}
	return ""
}

// stale says why the lock's owner is provably not running, or "" if it
// may be.
func (f *ForLife) stale(ctx context.Context, lock *corev1.ConfigMap) string {
	ref := podOwner(lock)
	if ref == nil {
		return ""
	}
	pod := &corev1.Pod{}
	err := f.cfg.Client.Get(ctx, types.NamespacedName{Namespace: lock.Namespace, Name: ref.Name}, pod)
	switch {
	case podNotFound(err, ref.Name):
		return "the owner Pod is gone"
	case err != nil:
		f.log.Debug("cannot read the owner Pod; the lock stays", "err", err)
		return ""
	case pod.UID != ref.UID:
		return "the owner Pod was replaced"
	case pod.Status.Phase == corev1.PodFailed && pod.Status.Reason == "Evicted":
		return "the owner Pod was evicted"
	}
	return ""
}

// podNotFound tells "no such Pod" from a 404 that means the server has
// no pods resource at all: only the first names the Pod. Mistaking one
// for the other would free a live leader's lock.
func podNotFound(err error, name string) bool {
	var se *client.StatusError
	return client.IsNotFound(err) && errors.As(err, &se) &&
		se.ErrStatus.Details != nil && se.ErrStatus.Details.Name == name
}

// deleteStale deletes the lock it was given, not whatever holds its name
// by now; it reports whether the lock changed, which is worth a look at
// once.
func (f *ForLife) deleteStale(ctx context.Context, lock *corev1.ConfigMap, why string) bool {
	uid, rv := lock.UID, lock.ResourceVersion
	err := f.cfg.Client.Delete(ctx, lock, client.Preconditions{UID: &uid, ResourceVersion: &rv})
	switch {
	case err == nil:
		f.log.Info("deleted a stale leader lock", "leader", ownerName(lock), "reason", why)
		return true
	case client.IsNotFound(err), client.IsConflict(err):
		return true // someone else freed or replaced it first
	case ctx.Err() == nil:
		f.log.Info("cannot delete a stale leader lock", "err", err)
	}
	return false
}
