package rootcacertpublisher

import (
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
)

// ErrNoCA is returned by Setup and BundleFrom when there is no CA
// certificate to publish.
var ErrNoCA = errors.New("no CA certificate to publish")

// BundleFrom is the CA bundle a client of cfg trusts: its CAData, else
// the file CAFile names; what kube-controller-manager publishes when no
// --root-ca-file is given.
func BundleFrom(cfg *rest.Config) ([]byte, error) {
	if len(cfg.CAData) > 0 {
		return cfg.CAData, nil
	}
	if cfg.CAFile == "" {
		return nil, ErrNoCA
	}
	b, err := os.ReadFile(cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("reading the CA bundle: %w", err)
	}
	return b, nil
}

// checkBundle refuses a bundle without a PEM certificate: publishing it
// would hand every pod a CA that verifies nothing.
func checkBundle(b []byte) error {
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return ErrNoCA
		}
		if block.Type == "CERTIFICATE" {
			return nil
		}
	}
}
