package webhooks

import (
	"context"
	"strings"
	"testing"
)

func TestGuardedControl(t *testing.T) {
	t.Setenv(AllowPrivateEnv, "") // the rules hold whatever the shell says
	for _, c := range []struct {
		address string
		want    string // "" when the dial may go ahead
	}{
		{"8.8.8.8:443", ""},
		{"[2606:4700:4700::1111]:443", ""},
		{"127.0.0.1:443", "refused to dial 127.0.0.1:443: 127.0.0.1 is a loopback address"},
		{"[::1]:8443", "refused to dial [::1]:8443"},
		{"[::ffff:10.1.2.3]:443", "10.1.2.3 is a private address"},
		{"169.254.169.254:80", "is a link-local address"},
		{"example.com:443", "dial example.com:443"}, // the dialer hands over addresses, never names
	} {
		err := guardedControl("tcp", c.address, nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused (%v)", c.address, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.address, err, c.want)
		}
	}
	t.Setenv(AllowPrivateEnv, "1")
	if err := guardedControl("tcp", "127.0.0.1:443", nil); err != nil {
		t.Errorf("with %s=1, loopback is refused: %v", AllowPrivateEnv, err)
	}
}

// The URLs hold IP literals, which resolve without a name server.
func TestCheckURL(t *testing.T) {
	t.Setenv(AllowPrivateEnv, "")
	cases := []struct {
		url  string
		want string // "" when the URL is accepted
	}{
		{"https://8.8.8.8/hooks/catalog", ""},
		{"https://[2606:4700:4700::1111]:8443/hook?x=1", ""},
		{"http://8.8.8.8/hook", "must be an https URL"},
		{"ftp://8.8.8.8/hook", "must be an https URL"},
		{"https://127.0.0.1/hook", "its address 127.0.0.1 is a loopback address"},
		{"https://[::1]/hook", "is a loopback address"},
		{"https://10.0.0.7/hook", "is a private address"},
		{"https://100.64.1.1/hook", "is a private address"},
		{"https://169.254.169.254/latest/meta-data/", "is a link-local address"},
		{"https://0.0.0.0/hook", "is an unspecified address"},
		{"https://user:secret@8.8.8.8/hook", "must not carry a user name or password"},
		{"/relative/path", "must be an absolute URL"},
		{"https://", "must be an absolute URL"},
		{"https://:443/hook", "must be an absolute URL"},
		{"::not a url", "must be an absolute URL"},
	}
	check := func(url, want string) {
		t.Helper()
		err := CheckURL(context.Background(), url)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused (%v)", url, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", url, err, want)
		}
	}
	for _, c := range cases {
		check(c.url, c.want)
	}

	// AllowPrivateEnv=1 lifts the address and https rules, not the others
	t.Setenv(AllowPrivateEnv, "1")
	for _, c := range []struct{ url, want string }{
		{"http://127.0.0.1:8080/hook", ""},
		{"https://10.0.0.7/hook", ""},
		{"ftp://127.0.0.1/hook", "must be an http or https URL"},
		{"http://user:secret@127.0.0.1/hook", "must not carry a user name or password"},
		{"/relative/path", "must be an absolute URL"},
	} {
		check(c.url, c.want)
	}
}
