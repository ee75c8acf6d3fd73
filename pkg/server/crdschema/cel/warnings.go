package cel

import "context"

type warningsKey struct{}

// WithWarnings returns a context under which Validate hands warn the
// error of each rule failure it drops because the value is unchanged
// (ratcheting): kube-apiserver answers them as warnings, so a client
// learns that the object breaks a rule it may keep.
func WithWarnings(ctx context.Context, warn func(msg string)) context.Context {
	return context.WithValue(ctx, warningsKey{}, warn)
}

func warningsFrom(ctx context.Context) func(string) {
	if ctx == nil {
		return nil
	}
	warn, _ := ctx.Value(warningsKey{}).(func(string))
	return warn
}
