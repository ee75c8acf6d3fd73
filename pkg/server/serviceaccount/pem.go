package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// PEM block types, as kubeadm writes sa.key (PKCS #1 for RSA, SEC 1 for
// ECDSA) and sa.pub (PKIX).
const (
	pemRSAPrivateKey = "RSA PRIVATE KEY"
	pemECPrivateKey  = "EC PRIVATE KEY"
	pemPKCS8Key      = "PRIVATE KEY"
	pemPublicKey     = "PUBLIC KEY"
)

// Errors of the PEM parsers, worded as kube's key utilities word them.
var (
	ErrNoPrivateKey = errors.New("data does not contain a valid RSA or ECDSA private key")
	ErrNoPublicKeys = errors.New("data does not contain any valid RSA or ECDSA public keys")
)

// ParsePrivateKeyPEM reads the first RSA or ECDSA private key in data:
// a PKCS #1 ("RSA PRIVATE KEY"), SEC 1 ("EC PRIVATE KEY") or unencrypted
// PKCS #8 ("PRIVATE KEY") block. Other blocks, such as "EC PARAMETERS",
// are skipped, as kube-apiserver skips them in
// --service-account-signing-key-file.
func ParsePrivateKeyPEM(data []byte) (*Key, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, ErrNoPrivateKey
		}
		var (
			priv any
			err  error
		)
		switch block.Type {
		case pemRSAPrivateKey:
			priv, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case pemECPrivateKey:
			priv, err = x509.ParseECPrivateKey(block.Bytes)
		case pemPKCS8Key:
			priv, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			continue
		}
		switch priv := priv.(type) {
		case *rsa.PrivateKey:
			return NewKey(priv)
		case *ecdsa.PrivateKey:
			return NewKey(priv)
		}
	}
}

// MarshalPEM encodes k's private key as kubeadm writes sa.key. It fails
// for a Signer that is not a software key.
func (k *Key) MarshalPEM() ([]byte, error) {
	switch priv := k.signer.(type) {
	case *rsa.PrivateKey:
		return pem.EncodeToMemory(&pem.Block{Type: pemRSAPrivateKey, Bytes: x509.MarshalPKCS1PrivateKey(priv)}), nil
	case *ecdsa.PrivateKey:
		der, err := x509.MarshalECPrivateKey(priv)
		if err != nil {
			return nil, fmt.Errorf("serviceaccount: encode key: %w", err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: pemECPrivateKey, Bytes: der}), nil
	}
	return nil, fmt.Errorf("serviceaccount: encode key: %T cannot be exported", k.signer)
}

// ParsePublicKeysPEM reads every RSA or ECDSA public key in data, from
// blocks of any type that hold a PKIX public key, a certificate, or a
// private key (whose public half is taken), as kube-apiserver reads
// --service-account-key-file. Blocks that hold none of these are
// skipped; data without any key is ErrNoPublicKeys.
func ParsePublicKeysPEM(data []byte) ([]PublicKey, error) {
	var keys []PublicKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		pub := publicKeyOf(block.Bytes)
		if pub == nil {
			continue
		}
		k, err := NewPublicKey(pub)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, ErrNoPublicKeys
	}
	return keys, nil
}

// publicKeyOf finds an RSA or ECDSA public key in one block's DER,
// whatever the block claims to be; nil if there is none.
func publicKeyOf(der []byte) crypto.PublicKey {
	candidates := []func([]byte) (any, error){
		func(b []byte) (any, error) { return x509.ParsePKCS1PrivateKey(b) },
		x509.ParsePKCS8PrivateKey,
		x509.ParsePKIXPublicKey,
		func(b []byte) (any, error) {
			c, err := x509.ParseCertificate(b)
			if err != nil {
				return nil, err
			}
			return c.PublicKey, nil
		},
		func(b []byte) (any, error) { return x509.ParseECPrivateKey(b) },
	}
	for _, parse := range candidates {
		k, err := parse(der)
		if err != nil {
			continue
		}
		switch k := k.(type) {
		case *rsa.PrivateKey:
			return &k.PublicKey
		case *ecdsa.PrivateKey:
			return &k.PublicKey
		case *rsa.PublicKey, *ecdsa.PublicKey:
			return k
		}
	}
	return nil
}

// MarshalPEM encodes p as a PKIX "PUBLIC KEY" block, as kubeadm writes
// sa.pub.
func (p PublicKey) MarshalPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemPublicKey, Bytes: p.der})
}
