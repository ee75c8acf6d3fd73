// Package csrcleaner deletes CertificateSigningRequests that have served
// their purpose, as kube-controller-manager's csrcleaner controller
// does, so that requests made by machines do not pile up:
//
//   - issued (approved, with a certificate): an hour after approval, or
//     once the certificate has expired, if sooner;
//   - denied or failed: an hour after the condition was last updated;
//   - pending (no condition at all): a day after creation.
//
// An approved request not yet issued stays: its signer has yet to act.
// kube looks at every request once an hour; this controller looks at
// each when it changes and again when its deadline comes, so requests
// go at their deadline rather than up to an hour after it. Which
// deadline applies is a pure function (Deadline).
package csrcleaner
