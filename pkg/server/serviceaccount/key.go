package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
)

// KeyBits is the size of the RSA keys GenerateKey makes, kubeadm's for
// sa.key.
const KeyBits = 2048

// JWS algorithms this package signs and verifies with: RS256 for RSA
// keys, ES256, ES384 and ES512 for ECDSA keys on P-256, P-384 and P-521,
// as kube-apiserver does.
const (
	RS256 = "RS256"
	ES256 = "ES256"
	ES384 = "ES384"
	ES512 = "ES512"
)

// ErrKeyType is returned for keys that are neither RSA nor ECDSA on one
// of the curves above.
var ErrKeyType = errors.New("unknown public key type, must be *rsa.PublicKey or *ecdsa.PublicKey on P-256, P-384 or P-521")

// Key is a signing key: a private key with its key ID and algorithm.
type Key struct {
	signer crypto.Signer
	public PublicKey
}

// GenerateKey makes a new RSA 2048 signing key.
func GenerateKey() (*Key, error) {
	priv, err := rsa.GenerateKey(rand.Reader, KeyBits)
	if err != nil {
		return nil, fmt.Errorf("serviceaccount: generate key: %w", err)
	}
	return NewKey(priv)
}

// NewKey wraps a private key: an *rsa.PrivateKey, an *ecdsa.PrivateKey,
// or any crypto.Signer (a hardware or KMS key) whose public key is one
// of those types. A Signer's Sign must accept a SHA-256, SHA-384 or
// SHA-512 digest and answer as the standard library's keys do (PKCS #1
// v1.5 for RSA, ASN.1 for ECDSA).
func NewKey(signer crypto.Signer) (*Key, error) {
	pub, err := NewPublicKey(signer.Public())
	if err != nil {
		return nil, err
	}
	return &Key{signer: signer, public: pub}, nil
}

// ID is the key ID tokens signed with k carry in their header.
func (k *Key) ID() string { return k.public.id }

// Algorithm is the JWS alg of k's signatures.
func (k *Key) Algorithm() string { return k.public.alg }

// Public is k's public half, for a KeySet and the JWKS.
func (k *Key) Public() PublicKey { return k.public }

// PublicKey is a verification key with its key ID and algorithm. Make
// one with NewPublicKey or ParsePublicKeysPEM.
type PublicKey struct {
	key crypto.PublicKey
	der []byte // PKIX, kept from deriving the ID so encoding cannot fail later
	jwk jwk
	id  string
	alg string
}

// NewPublicKey checks that pub is a key tokens can be verified with and
// derives its ID.
func NewPublicKey(pub crypto.PublicKey) (PublicKey, error) {
	alg, err := algorithmFor(pub)
	if err != nil {
		return PublicKey{}, err
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return PublicKey{}, fmt.Errorf("serviceaccount: public key: %w", err)
	}
	id := keyIDFromDER(der)
	j, err := jwkOf(pub, id, alg)
	if err != nil {
		return PublicKey{}, err
	}
	return PublicKey{key: pub, der: der, jwk: j, id: id, alg: alg}, nil
}

// ID is the key's ID (see KeyID).
func (p PublicKey) ID() string { return p.id }

// Algorithm is the JWS alg of signatures this key verifies.
func (p PublicKey) Algorithm() string { return p.alg }

// Key is the *rsa.PublicKey or *ecdsa.PublicKey.
func (p PublicKey) Key() crypto.PublicKey { return p.key }

// KeyID is kube-apiserver's key ID for a public key: the unpadded
// base64url SHA-256 of its PKIX DER encoding. It cannot be turned back
// into the key, and relying parties use it to pick the key from the
// JWKS.
func KeyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("serviceaccount: key ID: %w", err)
	}
	return keyIDFromDER(der), nil
}

func keyIDFromDER(der []byte) string {
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func algorithmFor(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return RS256, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return ES256, nil
		case elliptic.P384():
			return ES384, nil
		case elliptic.P521():
			return ES512, nil
		}
	}
	return "", ErrKeyType
}
