package serviceaccount

import (
	"errors"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

func TestDefault(t *testing.T) {
	l := DefaultLimits(testIssuer)
	var tr authenticationv1.TokenRequest
	l.Default(&tr, "sa", "ns")
	if tr.Name != "sa" || tr.Namespace != "ns" || *tr.Spec.ExpirationSeconds != 3600 ||
		!reflect.DeepEqual(tr.Spec.Audiences, []string{testIssuer}) {
		t.Errorf("defaulted = %+v %+v", tr.ObjectMeta, tr.Spec)
	}
	asked := authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}, ExpirationSeconds: ptr[int64](0)}}
	l.Default(&asked, "sa", "ns")
	if *asked.Spec.ExpirationSeconds != 0 || !reflect.DeepEqual(asked.Spec.Audiences, []string{"vault"}) {
		t.Errorf("Default changed what was asked: %+v", asked.Spec)
	}
}

func TestValidateTokenRequest(t *testing.T) {
	tests := []struct {
		seconds int64
		want    string
	}{
		{0, "spec.expirationSeconds: Invalid value: 0: may not specify a duration less than 10 minutes"},
		{599, "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"},
		{600, ""},
		{1 << 32, ""},
		{1<<32 + 1, "spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"},
	}
	for _, tt := range tests {
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(tt.seconds)}}
		got := Validate(tr).ToAggregate()
		switch {
		case tt.want == "" && got != nil:
			t.Errorf("Validate(%d) = %v, want no error", tt.seconds, got)
		case tt.want != "" && (got == nil || got.Error() != tt.want):
			t.Errorf("Validate(%d) = %v, want %q", tt.seconds, got, tt.want)
		}
	}
	named := &authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Name: "zzz"}}
	if got := ValidateName(named, "probe").ToAggregate(); got == nil ||
		got.Error() != `metadata.name: Invalid value: "zzz": must match the service account name if specified` {
		t.Errorf("ValidateName = %v", got)
	}
	named.Name = "probe"
	if got := ValidateName(named, "probe"); got != nil {
		t.Errorf("ValidateName of the same name = %v", got)
	}
}

func TestBinding(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		want             BoundKind
		wantMsg          string
	}{
		{"v1", "Pod", BoundPod, ""},
		{"", "Pod", BoundPod, ""},
		{"v1", "Secret", BoundSecret, ""},
		{"v1", "Node", BoundNode, ""},
		{"v1", "ConfigMap", "", "cannot bind token to object of type /v1, Kind=ConfigMap"},
		{"apps/v1", "Pod", "", "cannot bind token to object of type apps/v1, Kind=Pod"},
	}
	for _, tt := range tests {
		got, err := Binding(&authenticationv1.BoundObjectReference{APIVersion: tt.apiVersion, Kind: tt.kind, Name: "x"})
		if got != tt.want {
			t.Errorf("Binding(%s %s) = %q, want %q", tt.apiVersion, tt.kind, got, tt.want)
		}
		if tt.wantMsg == "" && err != nil || tt.wantMsg != "" && (!errors.Is(err, ErrBinding) || err.Error() != tt.wantMsg) {
			t.Errorf("Binding(%s %s) error = %v, want %q", tt.apiVersion, tt.kind, err, tt.wantMsg)
		}
	}
	if got, want := PodServiceAccountMismatch("other"), `cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.`; got != want {
		t.Errorf("PodServiceAccountMismatch = %q", got)
	}
}

func TestLifetime(t *testing.T) {
	kube := DefaultLimits(testIssuer)
	capped := kube
	capped.MaxExpirationSeconds = 7200
	short := kube
	short.MaxExpirationSeconds = 3600
	noExtension := kube
	noExtension.ExtendExpiration = false
	year := ExpirationExtensionSeconds
	tests := []struct {
		name    string
		limits  Limits
		seconds int64
		auds    []string
		pod     bool
		want    Lifetime
	}{
		{"as asked", kube, 3600, nil, true, Lifetime{ExpirationSeconds: 3600, TokenExpirationSeconds: 3600}},
		{"kubelet's projected token", kube, 3607, []string{testIssuer}, true,
			Lifetime{ExpirationSeconds: 3607, TokenExpirationSeconds: year, WarnAfterSeconds: 3607}},
		{"3607 not bound to a pod", kube, 3607, []string{testIssuer}, false, Lifetime{ExpirationSeconds: 3607, TokenExpirationSeconds: 3607}},
		{"3607 for another audience", kube, 3607, []string{testIssuer, "vault"}, true, Lifetime{ExpirationSeconds: 3607, TokenExpirationSeconds: 3607}},
		{"3607 without extension", noExtension, 3607, []string{testIssuer}, true, Lifetime{ExpirationSeconds: 3607, TokenExpirationSeconds: 3607}},
		{"extension ignores the maximum", capped, 3607, []string{testIssuer}, true,
			Lifetime{ExpirationSeconds: 3607, TokenExpirationSeconds: year, WarnAfterSeconds: 3607}},
		{"shortened", capped, 10000, nil, false,
			Lifetime{ExpirationSeconds: 7200, TokenExpirationSeconds: 7200, Warning: "requested expiration of 10000 seconds shortened to 7200 seconds"}},
		{"shortened below 3607: no extension", short, 3607, []string{testIssuer}, true,
			Lifetime{ExpirationSeconds: 3600, TokenExpirationSeconds: 3600, Warning: "requested expiration of 3607 seconds shortened to 3600 seconds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(tt.seconds), Audiences: tt.auds}
			if got := tt.limits.Lifetime(spec, tt.pod); got != tt.want {
				t.Errorf("Lifetime = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestValidateMaxExpiration(t *testing.T) {
	for _, tt := range []struct {
		seconds int64
		ok      bool
	}{{0, true}, {3599, false}, {3600, true}, {1 << 32, true}, {1<<32 + 1, false}} {
		if err := ValidateMaxExpiration(tt.seconds); (err == nil) != tt.ok {
			t.Errorf("ValidateMaxExpiration(%d) = %v", tt.seconds, err)
		}
	}
}
