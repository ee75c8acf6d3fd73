package serviceaccount_test

import (
	"fmt"
	"log"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
)

// A TokenRequest for the service account default in team-a, bound to a
// pod, then the TokenReview of the token it returned.
func Example() {
	const issuer = "https://kubernetes.default.svc.cluster.local"
	key, err := serviceaccount.GenerateKey() // or LoadOrCreateKey(pkiDir)
	if err != nil {
		log.Fatal(err)
	}
	limits := serviceaccount.DefaultLimits(issuer)
	now := time.Now()

	// Issuing: the kubelet asks for 3607 s for a projected volume.
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(3607))}}
	limits.Default(tr, "default", "team-a") // audiences: the issuer
	if errs := serviceaccount.Validate(tr); len(errs) > 0 {
		log.Fatal(errs.ToAggregate())
	}
	lifetime := limits.Lifetime(tr.Spec, true)
	claims, err := serviceaccount.NewClaims(serviceaccount.TokenSpec{
		Issuer:            issuer,
		Namespace:         "team-a",
		ServiceAccount:    serviceaccount.Ref{Name: "default", UID: "0b9f..."},
		Pod:               &serviceaccount.Ref{Name: "web-0", UID: "5c1e..."},
		Audiences:         tr.Spec.Audiences,
		ExpirationSeconds: lifetime.TokenExpirationSeconds,
		WarnAfterSeconds:  lifetime.WarnAfterSeconds,
	}, now)
	if err != nil {
		log.Fatal(err)
	}
	token, err := key.Issue(claims)
	if err != nil {
		log.Fatal(err)
	}

	// Reviewing: any server that lists the key validates it.
	keys := serviceaccount.NewKeySet(key.Public())
	got, err := keys.Validate(token, now.Add(time.Hour), []string{issuer}, []string{issuer})
	if err != nil {
		log.Fatal(err)
	}
	user := serviceaccount.UserInfo(got)
	fmt.Println(user.Username)
	fmt.Println(user.Groups)
	fmt.Println(user.Extra["authentication.kubernetes.io/pod-name"])
	fmt.Println("extended:", got.Expiry.Sub(got.IssuedAt) > 24*time.Hour, "warns after", got.WarnAfter.Sub(got.IssuedAt))
	// Output:
	// system:serviceaccount:team-a:default
	// [system:serviceaccounts system:serviceaccounts:team-a system:authenticated]
	// [web-0]
	// extended: true warns after 1h0m7s
}

func ptr[T any](v T) *T { return &v }
