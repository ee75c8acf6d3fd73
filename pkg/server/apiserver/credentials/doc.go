// Package credentials creates and loads the API server's TLS and admin
// credentials: a private CA, a serving certificate signed by it and an admin
// bearer token. It also writes the kubeconfig that lets clients use them and
// provides the bearer-token check the server applies to every request.
//
// The server speaks HTTPS only, so these credentials are what make it
// reachable at all; persistence is arranged so that kubeconfigs written on a
// first start keep working across restarts.
package credentials
