package storage

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// continueVersion marks the token layout so that a future change can
// reject old tokens cleanly instead of misreading them.
const continueVersion = "setpoint.storage/v1"

// A continue token records where a paged List stopped: the revision every
// page is read at and the last key returned, relative to the listed
// prefix. Keeping the key relative means a token cannot reach outside the
// prefix it is replayed against.
type continueToken struct {
	Version  string `json:"v"`
	Revision int64  `json:"rv"`
	After    string `json:"after"`
}

// EncodeContinue makes the token that resumes a listing of prefix at
// revision after lastKey. lastKey must start with prefix.
func EncodeContinue(prefix, lastKey string, revision int64) string {
	b, _ := json.Marshal(continueToken{Version: continueVersion, Revision: revision, After: lastKey[len(prefix):]})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeContinue returns the revision and the last key already returned
// (with prefix restored) from a token made by EncodeContinue. Any malformed
// token is ErrInvalidContinue.
func DecodeContinue(prefix, token string) (revision int64, lastKey string, err error) {
	if len(token) > 4*MaxKeyLen {
		return 0, "", fmt.Errorf("%w: too long", ErrInvalidContinue)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrInvalidContinue, err)
	}
	var t continueToken
	if err := json.Unmarshal(raw, &t); err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrInvalidContinue, err)
	}
	if t.Version != continueVersion {
		return 0, "", fmt.Errorf("%w: unknown version %q", ErrInvalidContinue, t.Version)
	}
	if t.Revision < 1 {
		return 0, "", fmt.Errorf("%w: revision %d", ErrInvalidContinue, t.Revision)
	}
	if t.After == "" {
		return 0, "", fmt.Errorf("%w: no position", ErrInvalidContinue)
	}
	key := prefix + t.After
	if err := ValidateKey(key); err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrInvalidContinue, err)
	}
	return t.Revision, key, nil
}

// Position validates a List's prefix and options and returns the revision
// to read at (zero for current) and the last key a previous page returned
// (empty for the first page). Backends call it first in List.
func (o ListOptions) Position(prefix string) (revision int64, after string, err error) {
	if err := ValidatePrefix(prefix); err != nil {
		return 0, "", err
	}
	if o.Continue == "" {
		return o.Revision, "", nil
	}
	return DecodeContinue(prefix, o.Continue)
}
