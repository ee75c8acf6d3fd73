package finalizer

import (
	"errors"
	"testing"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"widgets.example.com/cleanup", true},
		{"example.com/a-b_c.d", true},
		{"cleanup", false}, // no domain prefix
		{"", false},
		{"Example.com/cleanup", false}, // prefix must be a DNS subdomain
		{"example.com/", false},
		{"example.com/has space", false},
		{"a/b/c", false},
	}
	for _, tt := range tests {
		err := ValidateName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidateName(%q) = %v, not ErrInvalidName", tt.name, err)
		}
	}
}
