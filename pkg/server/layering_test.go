package server_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/setpoint-dev/setpoint/"

// layer is a set of packages (path prefixes under the module) and what
// their non-test files may not import.
type layer struct {
	name     string
	packages []string
	// forbidden are import path prefixes (module-relative, or standard
	// library paths) the layer may not use.
	forbidden []string
	// except are packages of the layer the rule does not cover.
	except []string
}

// TestLayering reads the import graph and checks that imports flow one
// way: endpoints -> object store -> storage, endpoints -> watch cache;
// the store and what is below it know no HTTP; the runtime half does not
// reach into the server half.
func TestLayering(t *testing.T) {
	layers := []layer{
		{
			name:      "storage knows nothing above it",
			packages:  []string{"pkg/storage"},
			forbidden: []string{"pkg/server", "pkg/client", "pkg/cache", "net/http"},
		},
		{
			name:      "the object store, the watch cache and the registry know no HTTP and no endpoint",
			packages:  []string{"pkg/server/registry", "pkg/server/watchcache", "pkg/server/crdschema", "pkg/server/user"},
			forbidden: []string{"pkg/server/apiserver", "net/http"},
		},
		{
			name:      "the error vocabulary sits below the store",
			packages:  []string{"pkg/server/apierror"},
			forbidden: []string{"pkg/server/apiserver", "pkg/server/registry/generic"},
		},
		{
			name:      "the endpoints reach storage only through the store",
			packages:  []string{"pkg/server/apiserver/params", "pkg/server/apiserver/response", "pkg/server/apiserver/filters", "pkg/server/apiserver/discovery"},
			forbidden: []string{"pkg/storage"},
		},
		{
			name:      "service account tokens are a pure core",
			packages:  []string{"pkg/server/serviceaccount"},
			forbidden: []string{"pkg/server/apiserver", "pkg/server/registry", "pkg/server/watchcache", "pkg/storage", "net/http"},
		},
		{
			name:      "credentials read no objects: the server hands them what tokens name",
			packages:  []string{"pkg/server/apiserver/credentials"},
			forbidden: []string{"pkg/server/watchcache", "pkg/server/registry", "pkg/storage"},
		},
		{
			name: "the runtime half does not import the server half",
			packages: []string{"pkg/client", "pkg/cache", "pkg/workqueue", "pkg/controller", "pkg/manager", "pkg/leaderelection",
				"pkg/finalizer", "pkg/fsm", "pkg/predicate", "pkg/reconcile", "pkg/events", "pkg/clock", "pkg/cron"},
			forbidden: []string{"pkg/server", "pkg/storage"},
		},
	}
	root := moduleRoot(t)
	for _, l := range layers {
		t.Run(l.name, func(t *testing.T) {
			for _, dir := range packageDirs(t, root, l.packages) {
				rel, _ := filepath.Rel(root, dir)
				if slices.Contains(l.except, rel) {
					continue
				}
				pkg, err := build.ImportDir(dir, 0)
				if err != nil {
					t.Fatalf("%s: %v", rel, err)
				}
				for _, imp := range pkg.Imports {
					for _, f := range l.forbidden {
						if forbids(f, imp) {
							t.Errorf("%s imports %s", rel, imp)
						}
					}
				}
			}
		})
	}
}

// forbids reports whether imp is the forbidden path f or below it.
func forbids(f, imp string) bool {
	full := f
	if strings.HasPrefix(f, "pkg/") {
		full = module + f
	}
	return imp == full || strings.HasPrefix(imp, full+"/")
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// packageDirs returns every directory holding Go files under the given
// module-relative roots, testdata excluded.
func packageDirs(t *testing.T, root string, roots []string) []string {
	t.Helper()
	var dirs []string
	for _, r := range roots {
		err := filepath.WalkDir(filepath.Join(root, r), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			if dir := filepath.Dir(path); !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(dirs) == 0 {
		t.Fatalf("no packages under %v", roots)
	}
	return dirs
}
