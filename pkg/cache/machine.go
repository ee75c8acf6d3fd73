package cache

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// phase is where a reflector is in its cycle; see Reflector for the
// diagram.
type phase uint8

const (
	phaseEmpty     phase = iota // nothing listed yet, or the list must be redone
	phaseStreaming              // WatchList: the initial state streams in as ADDED events
	phasePaging                 // paged LIST, one page per step
	phaseWatching               // watching from rv
	phaseBackoff                // waiting before phase `then`
)

func (p phase) String() string {
	switch p {
	case phaseEmpty:
		return "Empty"
	case phaseStreaming:
		return "InitialList(streaming)"
	case phasePaging:
		return "InitialList(paged)"
	case phaseWatching:
		return "Watching"
	case phaseBackoff:
		return "Backoff"
	}
	return "Unknown"
}

// machine is the reflector's state. It has no I/O and no clock: the
// reflector performs the step its phase calls for and feeds the outcome to
// next, so every transition can be tested as a table.
type machine struct {
	phase  phase
	then   phase  // where phaseBackoff leads
	rv     string // where the next watch resumes
	cont   string // continue token of the next page; "" starts a listing
	stream bool   // the next initial list tries WatchList
}

// result is how a step ended.
type result uint8

const (
	resDone   result = iota // phaseEmpty and phaseBackoff: nothing to report
	resPage                 // a LIST page was applied; cont is set when more remain
	resSynced               // the streamed initial state ended at its bookmark
	resEnded                // a watch ended without an error
	resFailed               // the step failed with err
)

// outcome is what a step reports to the machine.
type outcome struct {
	result result
	rv     string // the list's resourceVersion, or the last one a watch saw
	cont   string
	err    error
	short  bool // resEnded: the watch closed at once without an event
}

// next is the transition function.
func (m machine) next(o outcome) machine {
	switch m.phase {
	case phaseEmpty:
		m.rv, m.cont = "", ""
		m.phase = phasePaging
		if m.stream {
			m.phase = phaseStreaming
		}
	case phaseStreaming:
		if o.result == resSynced {
			m.phase, m.rv = phaseWatching, o.rv
			break
		}
		// Any failure falls back to a paged LIST at once. A server that
		// refused or garbled the stream will do so again, so the fallback
		// is remembered; a dropped connection says nothing about the
		// server, so the next relist tries streaming again.
		m.phase, m.cont = phasePaging, ""
		if !transient(o.err) {
			m.stream = false
		}
	case phasePaging:
		switch {
		case o.result == resPage && o.cont != "":
			m.cont = o.cont
		case o.result == resPage:
			m.phase, m.rv, m.cont = phaseWatching, o.rv, ""
		case m.cont != "" && apierrors.IsResourceExpired(o.err):
			// The continue token outlived its snapshot; list again
			// from the start, no need to wait.
			m.cont = ""
		default:
			m = m.backoff(phaseEmpty)
		}
	case phaseWatching:
		if o.rv != "" {
			m.rv = o.rv
		}
		switch {
		case o.result == resFailed && needsRelist(o.err):
			m.phase = phaseEmpty
		case o.result == resFailed || o.short:
			m = m.backoff(phaseWatching)
		}
		// A watch that ended normally (its timeout) resumes from rv.
	case phaseBackoff:
		m.phase = m.then
	}
	return m
}

func (m machine) backoff(then phase) machine {
	m.phase, m.then, m.cont = phaseBackoff, then, ""
	return m
}

// needsRelist reports whether a watch cannot resume from its
// resourceVersion: the server no longer has that history (410), or has not
// reached it (it was restored from an older state).
func needsRelist(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) || apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

// transient reports whether err says nothing about what the server
// supports: anything but a broken stream or a refusal of the request's
// form (a server without WatchList answers sendInitialEvents with 400 or
// 422). A 403 or a 404 (a CRD not there yet) is about the kind, not the
// protocol, and the next attempt streams again.
func transient(err error) bool {
	var unsupported *streamError
	if errors.As(err, &unsupported) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	switch status.Status().Code {
	case 400, 406, 415, 422:
		return false
	}
	return true
}

// streamError is a WatchList stream that broke the protocol, such as a
// MODIFIED before the initial-events-end bookmark: the server does not
// support it.
type streamError struct{ msg string }

func (e *streamError) Error() string { return "cache: watch list: " + e.msg }
