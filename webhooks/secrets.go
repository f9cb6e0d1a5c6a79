package webhooks

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pocketbase/pocketbase/core"
)

// Signing secrets are stored sealed (AES-256-GCM), so that a copy of
// data.db alone (a backup, a replica, a dump of the table) does not reveal
// them. The key comes from the environment variable SecretKeyEnv, or else
// from the file KeyFile in the data folder, made on first use; whoever
// restores a data folder elsewhere needs that key too.

// SecretKeyEnv names the environment variable that may hold the key: any
// text of at least 32 characters (it is hashed into the key).
const SecretKeyEnv = "ENRICHMENT_SECRET_KEY"

// KeyFile is the key's file in the data folder when SecretKeyEnv is unset.
const KeyFile = "webhook-secrets.key"

// secretPrefix starts every signing secret (Standard Webhooks' form).
const secretPrefix = "whsec_"

// sealedPrefix starts every sealed secret, so a later key scheme can differ.
const sealedPrefix = "v1:"

// Keyring seals signing secrets for storage and opens them to sign.
type Keyring struct {
	aead cipher.AEAD
}

// NewSecret makes a signing secret: whsec_ and base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // note: crypto/rand never fails on supported platforms
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// keyringOf returns app's keyring, loaded on first use.
func keyringOf(app core.App) (*Keyring, error) {
	type loaded struct {
		k   *Keyring
		err error
	}
	v := app.Store().GetOrSet("enrichmentWebhookKeyring", func() any {
		k, err := LoadKeyring(app.DataDir())
		return loaded{k, err}
	}).(loaded)
	return v.k, v.err
}

// LoadKeyring reads the key from SecretKeyEnv, or from KeyFile in dataDir,
// making that file (readable by its owner only) when it does not exist.
func LoadKeyring(dataDir string) (*Keyring, error) {
	var key []byte
	if err := checkKeyEnv(); err != nil {
		return nil, err
	}
	if env := os.Getenv(SecretKeyEnv); env != "" {
		sum := sha256.Sum256([]byte(env))
		key = sum[:]
	} else {
		var err error
		if key, err = fileKey(filepath.Join(dataDir, KeyFile)); err != nil {
			return nil, err
		}
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("webhook secrets key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("webhook secrets key: %w", err)
	}
	return &Keyring{aead: aead}, nil
}

// checkKeyEnv refuses a SecretKeyEnv that is set but too short.
func checkKeyEnv() error {
	if env := os.Getenv(SecretKeyEnv); env != "" && len(env) < 32 {
		return fmt.Errorf("%s must have at least 32 characters", SecretKeyEnv)
	}
	return nil
}

// fileKey reads a key file, or writes a new random one.
func fileKey(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		encoded := base64.StdEncoding.EncodeToString(key) + "\n"
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) { // another process made it meanwhile
			return fileKey(path)
		}
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		_, werr := f.WriteString(encoded)
		if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%s does not hold a key (base64 of 32 bytes)", path)
	}
	return key, nil
}

// Seal encrypts a secret for storage.
func (k *Keyring) Seal(secret string) (string, error) {
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	sealed := k.aead.Seal(nonce, nonce, []byte(secret), nil)
	return sealedPrefix + base64.StdEncoding.EncodeToString(sealed), nil
}

// Open decrypts a sealed secret; it fails when the key is not the one
// that sealed it.
func (k *Keyring) Open(sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, sealedPrefix))
	if err != nil || !strings.HasPrefix(sealed, sealedPrefix) || len(raw) < k.aead.NonceSize() {
		return "", errors.New("not a sealed webhook secret")
	}
	n := k.aead.NonceSize()
	plain, err := k.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return "", errors.New("the webhook secret cannot be opened with this key (was the key changed?)")
	}
	return string(plain), nil
}

// Seal seals a signing secret with app's keyring, for storage.
func Seal(app core.App, secret string) (string, error) {
	k, err := keyringOf(app)
	if err != nil {
		return "", err
	}
	return k.Seal(secret)
}
