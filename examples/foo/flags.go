package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// namespaceList is a flag that may be repeated and may hold several
// comma-separated namespaces: --namespace a,b --namespace c.
type namespaceList []string

func (l *namespaceList) String() string { return strings.Join(*l, ",") }

func (l *namespaceList) Set(s string) error {
	for ns := range strings.SplitSeq(s, ",") {
		ns = strings.TrimSpace(ns)
		if ns == "" {
			continue
		}
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			return fmt.Errorf("namespace %q: %s", ns, strings.Join(msgs, "; "))
		}
		if !slices.Contains(*l, ns) {
			*l = append(*l, ns)
		}
	}
	return nil
}
