package client

import (
	"net/url"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// Options are small named types, each applying to the calls it makes
// sense for: InNamespace works on List, Watch and DeleteAllOf; DryRunAll
// on every write. Callers may write their own by implementing the
// interfaces.

// ListOptions are what a List, Watch or DeleteAllOf selects.
type ListOptions struct {
	// Namespace limits the call to one namespace; empty means all.
	Namespace string
	metav1.ListOptions
}

// ListOption adjusts a List, Watch, or ListerWatcher.
type ListOption interface{ ApplyToList(*ListOptions) }

// WriteOptions adjust Create, Update, UpdateStatus and Patch.
type WriteOptions struct {
	DryRun bool
	// FieldManager names the writer in managedFields.
	FieldManager string
	// FieldValidation is Ignore, Warn or Strict for unknown fields.
	FieldValidation string
	// Force lets a server-side apply take over other managers' fields.
	Force bool
}

// WriteOption adjusts a Create, Update, UpdateStatus or Patch.
type WriteOption interface{ ApplyToWrite(*WriteOptions) }

// DeleteOption adjusts a Delete.
type DeleteOption interface{ ApplyToDelete(*metav1.DeleteOptions) }

// DeleteAllOfOptions are a DeleteAllOf's selection and delete options.
type DeleteAllOfOptions struct {
	List   ListOptions
	Delete metav1.DeleteOptions
}

// DeleteAllOfOption adjusts a DeleteAllOf.
type DeleteAllOfOption interface{ ApplyToDeleteAllOf(*DeleteAllOfOptions) }

// InNamespace limits a List, Watch or DeleteAllOf to one namespace.
type InNamespace string

func (n InNamespace) ApplyToList(o *ListOptions)               { o.Namespace = string(n) }
func (n InNamespace) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { n.ApplyToList(&o.List) }

// MatchingLabels selects objects having all of these labels; it adds to
// any other label selector.
type MatchingLabels map[string]string

func (m MatchingLabels) ApplyToList(o *ListOptions) {
	o.LabelSelector = and(o.LabelSelector, labels.SelectorFromSet(labels.Set(m)).String())
}
func (m MatchingLabels) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { m.ApplyToList(&o.List) }

// LabelSelector selects objects by a label selector in its string form
// ("app=web,tier!=db"); it adds to any other label selector.
type LabelSelector string

func (s LabelSelector) ApplyToList(o *ListOptions) {
	o.LabelSelector = and(o.LabelSelector, string(s))
}
func (s LabelSelector) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { s.ApplyToList(&o.List) }

// MatchingFields selects objects whose fields have these values
// (metadata.name, metadata.namespace, and what the resource supports).
type MatchingFields map[string]string

func (m MatchingFields) ApplyToList(o *ListOptions) {
	o.FieldSelector = and(o.FieldSelector, fields.SelectorFromSet(fields.Set(m)).String())
}
func (m MatchingFields) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { m.ApplyToList(&o.List) }

// FieldSelector selects objects by a field selector in its string form.
type FieldSelector string

func (s FieldSelector) ApplyToList(o *ListOptions) {
	o.FieldSelector = and(o.FieldSelector, string(s))
}
func (s FieldSelector) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { s.ApplyToList(&o.List) }

// and joins two selectors: both must hold.
func and(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

// Limit asks for at most this many items in one page of a List.
type Limit int64

func (l Limit) ApplyToList(o *ListOptions) { o.Limit = int64(l) }

// Continue asks for the page after the one that returned this token.
type Continue string

func (c Continue) ApplyToList(o *ListOptions) { o.Continue = string(c) }

// ResourceVersion says which state a List reads or where a Watch starts;
// see ResourceVersionMatch for how a List interprets it.
type ResourceVersion string

func (v ResourceVersion) ApplyToList(o *ListOptions) { o.ResourceVersion = string(v) }

// ResourceVersionMatch is NotOlderThan or Exact.
type ResourceVersionMatch metav1.ResourceVersionMatch

func (m ResourceVersionMatch) ApplyToList(o *ListOptions) {
	o.ResourceVersionMatch = metav1.ResourceVersionMatch(m)
}

// TimeoutSeconds ends a Watch (or bounds a List) after this long.
type TimeoutSeconds int64

func (t TimeoutSeconds) ApplyToList(o *ListOptions) {
	s := int64(t)
	o.TimeoutSeconds = &s
}

// AllowWatchBookmarks asks a Watch for BOOKMARK events.
type AllowWatchBookmarks bool

func (b AllowWatchBookmarks) ApplyToList(o *ListOptions) { o.AllowWatchBookmarks = bool(b) }

// SendInitialEvents makes a Watch start with the current state as ADDED
// events, ended by a bookmark (a WatchList); the server wants
// ResourceVersionMatch NotOlderThan and AllowWatchBookmarks with it.
type SendInitialEvents bool

func (b SendInitialEvents) ApplyToList(o *ListOptions) {
	v := bool(b)
	o.SendInitialEvents = &v
}

// PropagationPolicy says what happens to dependents: Orphan, Background
// or Foreground.
type PropagationPolicy metav1.DeletionPropagation

func (p PropagationPolicy) ApplyToDelete(o *metav1.DeleteOptions) {
	v := metav1.DeletionPropagation(p)
	o.PropagationPolicy = &v
}
func (p PropagationPolicy) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { p.ApplyToDelete(&o.Delete) }

// Preconditions must hold for the delete to happen; the server answers
// 409 Conflict otherwise.
type Preconditions metav1.Preconditions

func (p Preconditions) ApplyToDelete(o *metav1.DeleteOptions) {
	v := metav1.Preconditions(p)
	o.Preconditions = &v
}
func (p Preconditions) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { p.ApplyToDelete(&o.Delete) }

// GracePeriodSeconds is how long the object may take to go; 0 is now.
type GracePeriodSeconds int64

func (g GracePeriodSeconds) ApplyToDelete(o *metav1.DeleteOptions) {
	v := int64(g)
	o.GracePeriodSeconds = &v
}
func (g GracePeriodSeconds) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { g.ApplyToDelete(&o.Delete) }

// DryRunAll makes a write or delete go through every stage but storage.
var DryRunAll = dryRunAll{}

type dryRunAll struct{}

func (dryRunAll) ApplyToWrite(o *WriteOptions) { o.DryRun = true }
func (dryRunAll) ApplyToDelete(o *metav1.DeleteOptions) {
	o.DryRun = []string{metav1.DryRunAll}
}
func (d dryRunAll) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { d.ApplyToDelete(&o.Delete) }

// FieldManager names the writer in managedFields.
type FieldManager string

func (f FieldManager) ApplyToWrite(o *WriteOptions) { o.FieldManager = string(f) }

// FieldValidation is Ignore, Warn (the server's default) or Strict: what
// the server does about fields it does not know.
type FieldValidation string

func (f FieldValidation) ApplyToWrite(o *WriteOptions) { o.FieldValidation = string(f) }

func listOptionsOf(opts []ListOption) ListOptions {
	var o ListOptions
	for _, opt := range opts {
		opt.ApplyToList(&o)
	}
	return o
}

func writeOptionsOf(opts []WriteOption) WriteOptions {
	var o WriteOptions
	for _, opt := range opts {
		opt.ApplyToWrite(&o)
	}
	return o
}

// listQuery encodes list options as the query parameters kube-apiserver
// reads; zero values are left out.
func listQuery(o metav1.ListOptions, watch bool) url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	if watch {
		q.Set("watch", "true")
	}
	set("labelSelector", o.LabelSelector)
	set("fieldSelector", o.FieldSelector)
	set("resourceVersion", o.ResourceVersion)
	set("resourceVersionMatch", string(o.ResourceVersionMatch))
	set("continue", o.Continue)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.TimeoutSeconds != nil {
		q.Set("timeoutSeconds", strconv.FormatInt(*o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents != nil {
		q.Set("sendInitialEvents", strconv.FormatBool(*o.SendInitialEvents))
	}
	return q
}

func writeQuery(o WriteOptions) url.Values {
	q := url.Values{}
	if o.DryRun {
		q.Set("dryRun", metav1.DryRunAll)
	}
	if o.FieldManager != "" {
		q.Set("fieldManager", o.FieldManager)
	}
	if o.FieldValidation != "" {
		q.Set("fieldValidation", o.FieldValidation)
	}
	if o.Force {
		q.Set("force", "true")
	}
	return q
}
