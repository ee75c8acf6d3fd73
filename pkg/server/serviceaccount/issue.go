package serviceaccount

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Issue signs c into a compact JWS with kube-apiserver's header (alg,
// kid) and payload. An empty Subject is derived from the namespace and
// service account, an empty ID gets a random UUID; the issuer, the
// service account and the expiry are required, since a token without
// them could never be validated (or never expire).
func (k *Key) Issue(c Claims) (string, error) {
	want := MakeUsername(c.Namespace, c.ServiceAccount.Name)
	switch {
	case c.Issuer == "":
		return "", errors.New("serviceaccount: issue: no issuer")
	case c.Namespace == "" || c.ServiceAccount.Name == "" || c.ServiceAccount.UID == "":
		return "", errors.New("serviceaccount: issue: the namespace, name and uid of the service account are required")
	case c.Expiry.IsZero():
		return "", errors.New("serviceaccount: issue: no expiry")
	case c.Subject != "" && c.Subject != want:
		return "", fmt.Errorf("serviceaccount: issue: subject %q is not the service account's username %q", c.Subject, want)
	case c.Secret != nil && (c.Pod != nil || c.Node != nil):
		return "", errors.New("internal error, token can only be bound to one object type")
	}
	c.Subject = want
	if c.ID == "" {
		id, err := newUUID()
		if err != nil {
			return "", err
		}
		c.ID = id
	}
	payload, err := json.Marshal(c.wire())
	if err != nil {
		return "", fmt.Errorf("serviceaccount: issue: %w", err)
	}
	return compactJWS(k, payload)
}
