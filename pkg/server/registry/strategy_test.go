package registry

import (
	"reflect"
	"testing"
	"time"
)

func TestSecretStringData(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
		want map[string]any
	}{
		{
			name: "stringData becomes data",
			obj:  map[string]any{"stringData": map[string]any{"k": "v"}},
			want: map[string]any{"type": "Opaque", "data": map[string]any{"k": "dg=="}},
		},
		{
			name: "stringData wins over data",
			obj:  map[string]any{"data": map[string]any{"k": "eA==", "o": "eQ=="}, "stringData": map[string]any{"k": "v"}},
			want: map[string]any{"type": "Opaque", "data": map[string]any{"k": "dg==", "o": "eQ=="}},
		},
		{
			name: "empty stringData leaves no trace",
			obj:  map[string]any{"type": "example.com/custom", "stringData": map[string]any{}},
			want: map[string]any{"type": "example.com/custom"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.obj
			if errs := (secretStrategy{}).PrepareForCreate(time.Time{}, got); len(errs) > 0 {
				t.Fatal(errs)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("on update", func(t *testing.T) {
		old := map[string]any{"type": "Opaque", "data": map[string]any{"k": "eA=="}}
		got := map[string]any{"type": "Opaque", "data": map[string]any{"k": "eA=="}, "stringData": map[string]any{"n": "v"}}
		if errs := (secretStrategy{}).PrepareForUpdate(time.Time{}, got, old); len(errs) > 0 {
			t.Fatal(errs)
		}
		want := map[string]any{"type": "Opaque", "data": map[string]any{"k": "eA==", "n": "dg=="}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
}
