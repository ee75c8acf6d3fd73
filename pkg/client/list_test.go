package client_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

func TestListPaging(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			c, _ := start(t, mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			var want []string
			for i := range 5 {
				name := fmt.Sprintf("cm-%d", i)
				want = append(want, name)
				if err := c.Create(ctx, configMap("demo", name, nil)); err != nil {
					t.Fatal(err)
				}
			}
			var got, pages []string
			var list corev1.ConfigMapList
			cont := ""
			for {
				if err := c.List(ctx, &list, client.InNamespace("demo"), client.Limit(2), client.Continue(cont)); err != nil {
					t.Fatalf("List page %d: %v", len(pages), err)
				}
				got = append(got, names(ptrs(list.Items))...)
				pages = append(pages, fmt.Sprint(len(list.Items)))
				if cont = list.Continue; cont == "" {
					break
				}
			}
			if !slices.Equal(got, want) || !slices.Equal(pages, []string{"2", "2", "1"}) {
				t.Errorf("paged list: got %v in pages %v, want %v in pages [2 2 1]", got, pages, want)
			}
		})
	}
}

func TestListSelection(t *testing.T) {
	c, _ := start(t, client.Options{})
	ctx := ctx(t)
	createNamespace(t, c, "demo")
	createNamespace(t, c, "other")
	for _, o := range []struct{ ns, name, tier string }{
		{"demo", "web", "front"}, {"demo", "db", "back"}, {"other", "web", "front"},
	} {
		cm := configMap(o.ns, o.name, nil)
		cm.Labels = map[string]string{"tier": o.tier}
		if err := c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	var all corev1.ConfigMapList
	if err := c.List(ctx, &all); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts []client.ListOption
		want []string
	}{
		{"all namespaces", nil, []string{"demo/db", "demo/web", "other/web"}},
		{"one namespace", []client.ListOption{client.InNamespace("other")}, []string{"other/web"}},
		{"labels", []client.ListOption{client.MatchingLabels{"tier": "front"}}, []string{"demo/web", "other/web"}},
		{"labels and selector", []client.ListOption{client.MatchingLabels{"tier": "front"}, client.LabelSelector("tier!=back")}, []string{"demo/web", "other/web"}},
		{"fields", []client.ListOption{client.MatchingFields{"metadata.name": "db"}}, []string{"demo/db"}},
		{"field selector", []client.ListOption{client.FieldSelector("metadata.namespace=other")}, []string{"other/web"}},
		{"any version", []client.ListOption{client.ResourceVersion("0")}, []string{"demo/db", "demo/web", "other/web"}},
		{"exactly the first list's version", []client.ListOption{client.ResourceVersion(all.ResourceVersion),
			client.ResourceVersionMatch(metav1.ResourceVersionMatchExact)}, []string{"demo/db", "demo/web", "other/web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var list corev1.ConfigMapList
			if err := c.List(ctx, &list, tt.opts...); err != nil {
				t.Fatalf("List: %v", err)
			}
			var got []string
			for _, cm := range list.Items {
				got = append(got, cm.Namespace+"/"+cm.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
