package crdcleanup

// Bridges for the external tests, which run against a live server and so
// cannot live in this package (pkg/server imports it).
const (
	MsgInProgress = msgInProgress
	MsgCompleted  = msgCompleted
)

var KindOf = kindOf
