package compat_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestControllerRuntimeServiceAccount runs a controller-runtime manager
// as a ServiceAccount that may read ConfigMaps in one namespace, with a
// token from TokenRequest: it reconciles what it may read, and its
// client gets kube's 403 for the rest.
func TestControllerRuntimeServiceAccount(t *testing.T) {
	setControllerRuntimeLogger()
	srv := apiservertest.Start(t)
	ctx := t.Context()
	admin, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "sa-manager"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "configmap-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmap-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "reader", Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "reader",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(srv.Config)
	cfg.BearerToken = tr.Status.Token

	var mu sync.Mutex
	var seen []string
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 newScheme(t),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(seen, req.Name) {
			seen = append(seen, req.Name)
		}
		return reconcile.Result{}, nil
	})); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		ok := slices.Contains(seen, "settings")
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the manager did not reconcile settings; saw %v", seen)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The manager's client writes as the ServiceAccount, which may not.
	err = mgr.GetClient().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "made-by-sa"}})
	want := `configmaps is forbidden: User "system:serviceaccount:sa-manager:reader" cannot create resource "configmaps" in API group "" in the namespace "sa-manager"`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("create as the ServiceAccount: got %v, want 403 %q", err, want)
	}
	err = mgr.GetAPIReader().List(ctx, &corev1.SecretList{}, client.InNamespace(ns))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `cannot list resource "secrets"`) {
		t.Errorf("list secrets as the ServiceAccount: got %v, want 403", err)
	}
}
