package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"syscall"
)

// No server-side request forgery: a subscription's URL must be https and
// reach only public addresses, checked when it is registered (every address
// its host resolves to) and again on the address each delivery actually
// dials, so a name that later resolves to 127.0.0.1 does not get through.
// AllowPrivateEnv=1 lifts both rules, for private networks and tests.

// AllowPrivateEnv names the environment variable that lifts the rules.
const AllowPrivateEnv = "ENRICHMENT_WEBHOOK_ALLOW_PRIVATE"

// allowPrivate reports whether the rules are lifted.
func allowPrivate() bool {
	return os.Getenv(AllowPrivateEnv) == "1"
}

// sharedAddressSpace (RFC 6598, carrier-grade NAT) is not public either.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// publicAddress reports why ip may not be dialled, or nil.
func publicAddress(ip netip.Addr) error {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return fmt.Errorf("%s is a loopback address", ip)
	case ip.IsPrivate(), sharedAddressSpace.Contains(ip):
		return fmt.Errorf("%s is a private address", ip)
	case ip.IsMulticast():
		return fmt.Errorf("%s is a multicast address", ip)
	case ip.IsLinkLocalUnicast():
		return fmt.Errorf("%s is a link-local address", ip)
	case ip.IsUnspecified(), !ip.IsValid():
		return fmt.Errorf("%s is an unspecified address", ip)
	case ip.Is4() && ip.As4()[0] == 0:
		return fmt.Errorf("%s is in 0.0.0.0/8", ip)
	}
	return nil
}

// CheckURL checks a subscription URL as it is registered: parseable,
// absolute, https, and resolving to public addresses only. The error says
// what is wrong, for the response.
func CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return errors.New("must be an absolute URL")
	}
	if u.User != nil {
		return errors.New("must not carry a user name or password")
	}
	if allowPrivate() {
		if u.Scheme != "https" && u.Scheme != "http" {
			return errors.New("must be an http or https URL")
		}
		return nil
	}
	if u.Scheme != "https" {
		return errors.New("must be an https URL")
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("its host %s does not resolve", u.Hostname())
	}
	for _, a := range addrs {
		if err := publicAddress(a); err != nil {
			return fmt.Errorf("its host %s resolves to %w", u.Hostname(), err)
		}
	}
	return nil
}

// guardedControl refuses, at dial time, to connect to an address that is
// not public (unless the rules are lifted).
func guardedControl(_, address string, _ syscall.RawConn) error {
	if allowPrivate() {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	if err := publicAddress(ap.Addr()); err != nil {
		return fmt.Errorf("refused to dial %s: %w", address, err)
	}
	return nil
}
