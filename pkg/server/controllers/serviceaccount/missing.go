package serviceaccount

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultName is the account every namespace gets.
const DefaultName = "default"

// Missing are the names of want that ns should have and does not, given
// which of them exist. A namespace that is not Active needs nothing.
func Missing(ns *corev1.Namespace, want []string, exists map[string]bool) []string {
	if ns.Status.Phase != corev1.NamespaceActive {
		return nil
	}
	var out []string
	for _, name := range want {
		if !exists[name] {
			out = append(out, name)
		}
	}
	return out
}

// New is the account the controller creates: only its name, as kube's
// controller writes it.
func New(namespace, name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}
