package response

import sigsjson "sigs.k8s.io/json"

// unmarshalJSON decodes as the rest of the server does: keys match
// case-sensitively and integers stay int64, so a Table cell or a
// converted object shows 3, not 3.0.
func unmarshalJSON(b []byte, v any) error {
	return sigsjson.UnmarshalCaseSensitivePreserveInts(b, v)
}
