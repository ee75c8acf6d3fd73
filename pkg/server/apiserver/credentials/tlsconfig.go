package credentials

import (
	"crypto/tls"
)

// TLSConfig returns a fresh server configuration serving c.Serving. HTTP/2 is
// offered first because client-go multiplexes watches over one connection.
func (c *Credentials) TLSConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{c.Serving},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
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
