package serviceaccount

import (
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestUserInfo(t *testing.T) {
	sa := Ref{Name: "sa", UID: "sa-uid"}
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"}
	tests := []struct {
		name   string
		claims Claims
		want   map[string]authenticationv1.ExtraValue
	}{
		{"no jti, nothing bound", Claims{Namespace: "ns", ServiceAccount: sa}, nil},
		{"secret-bound", Claims{Namespace: "ns", ServiceAccount: sa, ID: "j", Secret: &Ref{"s", "s-uid"}},
			map[string]authenticationv1.ExtraValue{ExtraCredentialID: {"JTI=j"}}},
		{"node-bound", Claims{Namespace: "ns", ServiceAccount: sa, ID: "j", Node: &Ref{"n", "n-uid"}},
			map[string]authenticationv1.ExtraValue{ExtraCredentialID: {"JTI=j"}, ExtraNodeName: {"n"}, ExtraNodeUID: {"n-uid"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := authenticationv1.UserInfo{Username: "system:serviceaccount:ns:sa", UID: "sa-uid", Groups: groups, Extra: tt.want}
			if got := UserInfo(&tt.claims); !reflect.DeepEqual(got, want) {
				t.Errorf("UserInfo\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestSplitUsername(t *testing.T) {
	tests := []struct {
		username, ns, name string
		ok                 bool
	}{
		{"system:serviceaccount:kube-system:default", "kube-system", "default", true},
		{"system:serviceaccount:ns:a.b", "ns", "a.b", true},
		{"system:serviceaccount:ns", "", "", false},
		{"system:serviceaccount:ns:a:b", "", "", false},
		{"system:serviceaccount::name", "", "", false},
		{"system:serviceaccount:Upper:name", "", "", false},
		{"system:serviceaccounts:ns", "", "", false},
		{"alice", "", "", false},
	}
	for _, tt := range tests {
		ns, name, ok := SplitUsername(tt.username)
		if ns != tt.ns || name != tt.name || ok != tt.ok {
			t.Errorf("SplitUsername(%q) = %q, %q, %v; want %q, %q, %v", tt.username, ns, name, ok, tt.ns, tt.name, tt.ok)
		}
	}
}
