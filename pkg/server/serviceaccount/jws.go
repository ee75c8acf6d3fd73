package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// A compact JWS (RFC 7515 section 7.1) is three unpadded base64url parts
// joined by dots: the protected header, the payload and the signature,
// which covers the first two parts as they are written.

// header is the protected header kube-apiserver writes: the fields in
// this order, nothing else (no typ).
type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
}

var b64 = base64.RawURLEncoding.Strict()

// compactJWS signs payload with key and writes the token.
func compactJWS(key *Key, payload []byte) (string, error) {
	h, err := json.Marshal(header{Alg: key.public.alg, Kid: key.public.id})
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(payload)
	sig, err := sign(key, []byte(input))
	if err != nil {
		return "", err
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// jws is a token split into its parts; nothing in it is verified.
type jws struct {
	alg, kid  string
	input     []byte // what the signature covers
	payload   []byte
	signature []byte
}

// parseCompact splits token strictly: exactly three parts of the
// base64url alphabet without padding, line breaks or spare bits (so
// that no two spellings decode to the same token), and a header that is
// a JSON object with a string alg.
func parseCompact(token string) (*jws, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, refuse(ErrMalformed, "service account token is not a compact JWS: want 3 parts separated by dots")
	}
	var raw [3][]byte
	for i, p := range parts {
		// The decoder would skip CR and LF; a token has none.
		if strings.ContainsAny(p, "\r\n") {
			return nil, refuse(ErrMalformed, "service account token is not unpadded base64url")
		}
		b, err := b64.DecodeString(p)
		if err != nil {
			return nil, refuse(ErrMalformed, "service account token is not unpadded base64url")
		}
		raw[i] = b
	}
	var h struct {
		Alg  *string         `json:"alg"`
		Kid  *string         `json:"kid"`
		Crit json.RawMessage `json:"crit"`
	}
	if err := json.Unmarshal(raw[0], &h); err != nil || h.Alg == nil {
		return nil, refuse(ErrMalformed, "service account token header is not a JSON object with an alg")
	}
	// Critical extensions must be understood; this package knows none.
	if h.Crit != nil {
		return nil, refuse(ErrMalformed, "service account token header has unsupported critical extensions")
	}
	t := &jws{
		alg:       *h.Alg,
		input:     []byte(parts[0] + "." + parts[1]),
		payload:   raw[1],
		signature: raw[2],
	}
	if h.Kid != nil {
		t.kid = *h.Kid
	}
	return t, nil
}

// hashFor is the digest of each supported alg; others (none, HS256,
// PS256...) are not signed or verified here.
func hashFor(alg string) (crypto.Hash, bool) {
	switch alg {
	case RS256, ES256:
		return crypto.SHA256, true
	case ES384:
		return crypto.SHA384, true
	case ES512:
		return crypto.SHA512, true
	}
	return 0, false
}

func digest(h crypto.Hash, input []byte) []byte {
	d := h.New()
	d.Write(input)
	return d.Sum(nil)
}

func sign(key *Key, input []byte) ([]byte, error) {
	h, _ := hashFor(key.public.alg)
	sig, err := key.signer.Sign(rand.Reader, digest(h, input), h)
	if err != nil {
		return nil, fmt.Errorf("serviceaccount: sign: %w", err)
	}
	pub, ok := key.public.key.(*ecdsa.PublicKey)
	if !ok {
		return sig, nil
	}
	// Signers answer ASN.1; JWS wants R and S as fixed-size big-endian
	// halves (RFC 7518 section 3.4).
	var rs struct{ R, S *big.Int }
	size := curveBytes(pub)
	if rest, err := asn1.Unmarshal(sig, &rs); err != nil || len(rest) != 0 ||
		rs.R == nil || rs.S == nil || rs.R.Sign() <= 0 || rs.S.Sign() <= 0 ||
		rs.R.BitLen() > 8*size || rs.S.BitLen() > 8*size {
		return nil, errors.New("serviceaccount: sign: signer returned a malformed ECDSA signature")
	}
	out := make([]byte, 2*size)
	rs.R.FillBytes(out[:size])
	rs.S.FillBytes(out[size:])
	return out, nil
}

// verify checks sig over input with pub, whose algorithm the caller has
// matched with the header's.
func verify(pub PublicKey, input, sig []byte) bool {
	h, _ := hashFor(pub.alg)
	d := digest(h, input)
	switch k := pub.key.(type) {
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(k, h, d, sig) == nil
	case *ecdsa.PublicKey:
		size := curveBytes(k)
		if len(sig) != 2*size {
			return false
		}
		r := new(big.Int).SetBytes(sig[:size])
		s := new(big.Int).SetBytes(sig[size:])
		return ecdsa.Verify(k, d, r, s)
	}
	return false
}

func curveBytes(k *ecdsa.PublicKey) int { return (k.Curve.Params().BitSize + 7) / 8 }
