package serviceaccount

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/setpoint-dev/setpoint/internal/durablefile"
)

// The files LoadOrCreateKey keeps in its directory, named as kubeadm
// names them in /etc/kubernetes/pki.
const (
	KeyFile       = "sa.key"
	PublicKeyFile = "sa.pub"
)

const (
	dirMode    = 0o700
	secretMode = 0o600
	publicMode = 0o644
)

// LoadOrCreateKey returns the signing key kept in dir, creating dir, an
// RSA 2048 sa.key (mode 0600) and its sa.pub (0644) the first time.
// Servers sharing dir (replicas sharing a --pki-dir) end up with the same
// key however they race: the key is written whole to a temporary file,
// synced, and then linked into place, which fails rather than replaces
// when another process got there first, in which case its key is read
// instead. A missing sa.pub is rewritten from sa.key; an sa.pub that does
// not hold sa.key's public key, or one without its sa.key, is an error,
// since tokens would then be signed with a key other replicas do not
// trust.
func LoadOrCreateKey(dir string) (*Key, error) {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	keyPath := filepath.Join(dir, KeyFile)
	pubPath := filepath.Join(dir, PublicKeyFile)
	key, err := readKeyFile(keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Stat(pubPath); statErr == nil {
			return nil, fmt.Errorf("serviceaccount: %s exists without %s; restore the key or remove both to start over, which invalidates every issued token", pubPath, keyPath)
		}
		key, err = createKeyFile(keyPath)
	}
	if err != nil {
		return nil, err
	}
	if err := ensurePublicKeyFile(pubPath, key); err != nil {
		return nil, err
	}
	return key, nil
}

func readKeyFile(path string) (*Key, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	key, err := ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("serviceaccount: %s: %w", path, err)
	}
	return key, nil
}

// createKeyFile writes a new key at path unless another writer does
// first, and returns whichever key ends up there.
func createKeyFile(path string) (*Key, error) {
	key, err := GenerateKey()
	if err != nil {
		return nil, err
	}
	data, err := key.MarshalPEM()
	if err != nil {
		return nil, err
	}
	tmp, err := writeTemp(path, data, secretMode)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	// A hard link, unlike a rename, never replaces: of racing writers
	// exactly one places its key and the others read it.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKeyFile(path)
		}
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	if err := durablefile.SyncDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	return key, nil
}

func ensurePublicKeyFile(path string, key *Key) error {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writeFileAtomic(path, key.Public().MarshalPEM(), publicMode)
	case err != nil:
		return fmt.Errorf("serviceaccount: %w", err)
	}
	keys, err := ParsePublicKeysPEM(data)
	if err != nil {
		return fmt.Errorf("serviceaccount: %s: %w", path, err)
	}
	for _, k := range keys {
		if k.ID() == key.ID() {
			return nil
		}
	}
	return fmt.Errorf("serviceaccount: %s does not hold the public key of %s (key ID %s)", path, KeyFile, key.ID())
}

// writeFileAtomic replaces path with data, so that readers and a restart
// after a crash see the old file or the whole new one.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("serviceaccount: %w", err)
	}
	if err := durablefile.SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("serviceaccount: %w", err)
	}
	return nil
}

// writeTemp writes data, synced, to a new file beside path and returns
// its name.
func writeTemp(path string, data []byte, mode os.FileMode) (name string, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("serviceaccount: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			err = fmt.Errorf("serviceaccount: write %s: %w", path, err)
		}
	}()
	// The mode is set before any secret byte lands in the file.
	if err := f.Chmod(mode); err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}
