package webhooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// The key of SecretKeyEnv, or else of KeyFile (made once, readable by its
// owner only), seals secrets that only the same key opens.
func TestKeyring(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(SecretKeyEnv, "")
	first, err := LoadKeyring(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", info, err)
	}
	sealed, err := first.Seal("whsec_abc")
	if err != nil || !strings.HasPrefix(sealed, sealedPrefix) || strings.Contains(sealed, "abc") {
		t.Fatalf("sealed %q, %v", sealed, err)
	}
	again, err := LoadKeyring(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := again.Open(sealed); err != nil || got != "whsec_abc" {
		t.Errorf("opened with the same file's key: %q, %v", got, err)
	}

	t.Setenv(SecretKeyEnv, strings.Repeat("k", 32))
	fromEnv, err := LoadKeyring(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fromEnv.Open(sealed); err == nil {
		t.Error("another key opened the secret")
	}

	for _, bad := range []string{"short", strings.Repeat("k", 31)} {
		t.Setenv(SecretKeyEnv, bad)
		if _, err := LoadKeyring(dir); err == nil || !strings.Contains(err.Error(), SecretKeyEnv) {
			t.Errorf("a key of %d characters: %v", len(bad), err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, KeyFile), []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(SecretKeyEnv, "")
	if _, err := LoadKeyring(dir); err == nil || !strings.Contains(err.Error(), "does not hold a key") {
		t.Errorf("a damaged key file: %v", err)
	}
}

// A SecretKeyEnv refused stops the start (serve, demo) with its reason,
// before any webhook is created with it.
func TestServeRefusesABadKey(t *testing.T) {
	t.Setenv(SecretKeyEnv, "short")
	app, err := tests.NewTestApp()
	if err != nil {
		t.Fatal(err)
	}
	defer app.Cleanup()
	Register(app)
	err = app.OnServe().Trigger(&core.ServeEvent{App: app}, func(e *core.ServeEvent) error { return nil })
	if err == nil || !strings.Contains(err.Error(), SecretKeyEnv+" must have at least 32 characters") {
		t.Errorf("serve with a short key: %v", err)
	}
}
