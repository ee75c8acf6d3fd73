package fsm

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Outcome is what a state decided: where the walk goes and what the
// state's condition says. Build one with Next, Done, Wait or Fail.
type Outcome struct {
	kind    outcomeKind
	next    string
	after   time.Duration
	err     error
	status  metav1.ConditionStatus
	reason  string
	message string
}

type outcomeKind int

const (
	// The zero Outcome is none of these: a state that forgot to decide
	// is an error, not a silent success.
	kindNone outcomeKind = iota
	kindNext
	kindDone
	kindWait
	kindFail
)

func (k outcomeKind) String() string {
	switch k {
	case kindNext:
		return "next"
	case kindDone:
		return "done"
	case kindWait:
		return "wait"
	case kindFail:
		return "fail"
	}
	return "none"
}

// Default reasons for an Outcome given an empty one. A condition's reason
// must be a non-empty CamelCase word.
const (
	ReasonSucceeded = "Succeeded"
	ReasonWaiting   = "Waiting"
	ReasonFailed    = "Failed"
)

// Next sets the state's condition True and goes on to the state named.
func Next(state, reason, message string) Outcome {
	return Outcome{kind: kindNext, next: state, status: metav1.ConditionTrue, reason: orDefault(reason, ReasonSucceeded), message: message}
}

// Done sets the state's condition True and ends the walk: the object is
// as its spec says.
func Done(reason, message string) Outcome {
	return Outcome{kind: kindDone, status: metav1.ConditionTrue, reason: orDefault(reason, ReasonSucceeded), message: message}
}

// Wait sets the state's condition False and ends the walk: something
// has yet to happen. A positive after reconciles again then; zero waits
// for the next event about the object. Wait(d, ...).WithStatus(True) is
// a finished walk that wants to look again later.
func Wait(after time.Duration, reason, message string) Outcome {
	return Outcome{kind: kindWait, after: max(after, 0), status: metav1.ConditionFalse, reason: orDefault(reason, ReasonWaiting), message: message}
}

// Fail sets the state's condition False with err as its message and ends
// the walk with err: the request is retried with backoff, or, if err is
// a reconcile.TerminalError, not until the object changes.
func Fail(err error, reason string) Outcome {
	o := Outcome{kind: kindFail, err: err, status: metav1.ConditionFalse, reason: orDefault(reason, ReasonFailed)}
	if err != nil {
		o.message = err.Error()
	}
	return o
}

// WithStatus returns o with its condition status replaced: a state that
// goes on although its part is not True (an optional feature that is
// off: Next(...).WithStatus(Unknown)).
func (o Outcome) WithStatus(s metav1.ConditionStatus) Outcome {
	o.status = s
	return o
}

func (o Outcome) condition(typ string, generation int64) metav1.Condition {
	return metav1.Condition{Type: typ, Status: o.status, Reason: o.reason, Message: o.message, ObservedGeneration: generation}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
