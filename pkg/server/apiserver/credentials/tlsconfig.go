package credentials

import (
	"crypto/tls"
)

// TLSConfig returns a fresh server configuration serving c.Serving. HTTP/2 is
// offered first because client-go multiplexes watches over one connection.
//
// Clients are asked for a certificate, signed by the CA, but not required
// to send one, and one that does not verify does not end the handshake:
// the Authenticator checks it and answers 401 (or accepts the request's
// token), as kube-apiserver does with --client-ca-file.
func (c *Credentials) TLSConfig() *tls.Config {
	cfg := &tls.Config{
		Certificates: []tls.Certificate{c.Serving},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
		ClientAuth:   tls.RequestClientCert,
	}
	// The pool only names the acceptable issuers in the handshake, so
	// clients holding several certificates pick the right one.
	if pool, err := c.CertPool(); err == nil {
		cfg.ClientCAs = pool
	}
	return cfg
}

// ClientTLSConfig returns a client configuration that trusts only this
// server's CA, for in-process clients that bypass kubeconfig.
func (c *Credentials) ClientTLSConfig() (*tls.Config, error) {
	pool, err := c.CertPool()
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		RootCAs:    pool,
		MinVersion: tls.VersionTLS12,
	}, nil
}
