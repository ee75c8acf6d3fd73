// Package reconcile is the contract between a controller and the code a
// user writes: a Request names the object to bring in line with its spec,
// a Result says when to look again, and an error says the attempt failed
// (retried with the queue's backoff) or, wrapped by TerminalError, that
// retrying cannot help.
//
// It sits at the top of the data path: informers feed events, the
// controller turns them into Requests on a workqueue, and its workers
// call Reconcile. Each call also carries, in its context, why it ran
// (Reasons): the events, requeues, retries and resyncs merged into it.
package reconcile
