// Package credentials creates and loads the API server's TLS and admin
// credentials: a private CA, a serving certificate signed by it and an admin
// bearer token. It also signs client certificates with that CA, writes the
// kubeconfigs that let clients use them, and provides the check the server
// applies to every request (a client certificate the CA signed, as
// kube-apiserver's --client-ca-file, else a bearer token), and
// authenticates ServiceAccount tokens with objects the server looks up
// for it.
//
// The server speaks HTTPS only, so these credentials are what make it
// reachable at all; persistence is arranged so that kubeconfigs written on a
// first start keep working across restarts.
package credentials
