package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{args: nil, wantCode: 2, wantStderr: "Usage: setpoint"},
		{args: []string{"help"}, wantCode: 0, wantStdout: "Commands:"},
		{args: []string{"version"}, wantCode: 0, wantStdout: "setpoint v"},
		{args: []string{"version", "-x"}, wantCode: 2, wantStderr: "flag provided but not defined"},
		{args: []string{"server"}, wantCode: 0, wantStdout: "setpoint v"},
		{args: []string{"server", "extra"}, wantCode: 2, wantStderr: "unexpected arguments"},
		{args: []string{"nope"}, wantCode: 2, wantStderr: `unknown command "nope"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := Run(context.Background(), tt.args, &stdout, &stderr)
			if got != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", got, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout %q, want it to contain %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}
