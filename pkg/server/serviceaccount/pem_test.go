package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"testing"
	"time"
)

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func TestParsePrivateKeyPEM(t *testing.T) {
	rsaKey, _, ecKey := testKeys(t)
	rsaPriv := rsaKey.signer
	ecPriv := ecKey.signer.(*ecdsa.PrivateKey)
	pkcs8RSA, _ := x509.MarshalPKCS8PrivateKey(rsaPriv)
	pkcs8EC, _ := x509.MarshalPKCS8PrivateKey(ecPriv)
	sec1, _ := x509.MarshalECPrivateKey(ecPriv)
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	pkcs8Ed, _ := x509.MarshalPKCS8PrivateKey(edPriv)
	rsaPEM, err := rsaKey.MarshalPEM()
	if err != nil {
		t.Fatal(err)
	}
	ecPEM, err := ecKey.MarshalPEM()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		data   []byte
		wantID string
	}{
		{"PKCS #1 RSA, as written", rsaPEM, rsaKey.ID()},
		{"PKCS #8 RSA", pemBlock("PRIVATE KEY", pkcs8RSA), rsaKey.ID()},
		{"SEC 1 EC, as written", ecPEM, ecKey.ID()},
		{"PKCS #8 EC", pemBlock("PRIVATE KEY", pkcs8EC), ecKey.ID()},
		{"EC PARAMETERS before the key", append(pemBlock("EC PARAMETERS", []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}), pemBlock("EC PRIVATE KEY", sec1)...), ecKey.ID()},
		{"Ed25519", pemBlock("PRIVATE KEY", pkcs8Ed), ""},
		{"public key only", rsaKey.Public().MarshalPEM(), ""},
		{"not PEM", []byte("sa.key"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParsePrivateKeyPEM(tt.data)
			if tt.wantID == "" {
				if !errors.Is(err, ErrNoPrivateKey) {
					t.Errorf("ParsePrivateKeyPEM = %v, %v; want ErrNoPrivateKey", k, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.ID() != tt.wantID {
				t.Errorf("key ID = %s, want %s", k.ID(), tt.wantID)
			}
		})
	}
}

func TestParsePublicKeysPEM(t *testing.T) {
	rsaKey, rsa2, ecKey := testKeys(t)
	rsaPEM, _ := rsaKey.MarshalPEM()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sa"}, NotAfter: time.Now().Add(time.Hour)}
	cert, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, ecKey.Public().Key(), ecKey.signer)
	if err != nil {
		t.Fatal(err)
	}
	p224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	p224DER, _ := x509.MarshalPKIXPublicKey(&p224.PublicKey)
	tests := []struct {
		name    string
		data    []byte
		wantIDs []string
		wantErr error
	}{
		{"PKIX keys in order", append(rsa2.Public().MarshalPEM(), rsaKey.Public().MarshalPEM()...), []string{rsa2.ID(), rsaKey.ID()}, nil},
		{"a private key's public half", rsaPEM, []string{rsaKey.ID()}, nil},
		{"a certificate's key", pemBlock("CERTIFICATE", cert), []string{ecKey.ID()}, nil},
		{"other blocks skipped", append(pemBlock("COMMENT", []byte("x")), ecKey.Public().MarshalPEM()...), []string{ecKey.ID()}, nil},
		{"no key", pemBlock("COMMENT", []byte("x")), nil, ErrNoPublicKeys},
		{"P-224", pemBlock("PUBLIC KEY", p224DER), nil, ErrKeyType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, err := ParsePublicKeysPEM(tt.data)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("ParsePublicKeysPEM = %v, want %v", err, tt.wantErr)
			}
			var ids []string
			for _, k := range keys {
				ids = append(ids, k.ID())
			}
			if len(ids) != len(tt.wantIDs) {
				t.Fatalf("IDs = %v, want %v", ids, tt.wantIDs)
			}
			for i := range ids {
				if ids[i] != tt.wantIDs[i] {
					t.Errorf("IDs = %v, want %v", ids, tt.wantIDs)
				}
			}
		})
	}
}
