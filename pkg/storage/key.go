package storage

import "unicode/utf8"

// MaxKeyLen bounds a key's length in bytes. Kubernetes keys are a prefix,
// a namespace and a name, all far below it.
const MaxKeyLen = 2048

// ValidateKey reports whether key can be stored. Keys are non-empty UTF-8
// without NUL bytes, which lets backends use NUL as a separator that sorts
// before every key byte.
func ValidateKey(key string) error {
	if key == "" {
		return keyError(key, "empty")
	}
	return validateKeyPart(key)
}

// ValidatePrefix is ValidateKey for list and watch prefixes, which may be
// empty (everything).
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return validateKeyPart(prefix)
}

func validateKeyPart(s string) error {
	if len(s) > MaxKeyLen {
		return keyError(s, "longer than 2048 bytes")
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return keyError(s, "contains a NUL byte")
		}
	}
	if !utf8.ValidString(s) {
		return keyError(s, "not valid UTF-8")
	}
	return nil
}
