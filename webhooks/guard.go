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

// publicAddress reports why ip may not be dialled, or nil: ip must be a
// global unicast address, outside every range of IANA's special-purpose
// address registries that is not globally reachable (see special.go). An
// IPv4 address embedded in an IPv6 one (IPv4-mapped, NAT64 64:ff9b::/96,
// 6to4 2002::/16) is decoded and checked as well.
func publicAddress(ip netip.Addr) error {
	if !ip.IsValid() {
		return &refusal{ip: ip, what: "not an address"}
	}
	ip = ip.WithZone("").Unmap()
	if embedded, how, ok := embeddedIPv4(ip); ok {
		if err := publicAddress(embedded); err != nil {
			inner := err.(*refusal)
			return &refusal{ip: ip, what: how + " of " + inner.ip.String() + ", " + inner.what}
		}
		return nil
	}
	for _, r := range specialRanges {
		if r.prefix.Contains(ip) && !globalException(ip) {
			return &refusal{ip: ip, what: r.what}
		}
	}
	if ip.Is6() && !globalUnicast6.Contains(ip) {
		return &refusal{ip: ip, what: "outside the IPv6 global unicast space (2000::/3)"}
	}
	return nil
}

// refusal says why an address may not be dialled.
type refusal struct {
	ip   netip.Addr
	what string // "a loopback address"
}

// Error reads "127.0.0.1 is a loopback address".
func (r *refusal) Error() string { return r.String() }

// String is the same as Error.
func (r *refusal) String() string { return r.ip.String() + " is " + r.what }

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
	literal := net.ParseIP(u.Hostname()) != nil
	for _, a := range addrs {
		err := publicAddress(a)
		var r *refusal
		switch {
		case err == nil:
		case errors.As(err, &r) && literal:
			return fmt.Errorf("its address %s", r)
		case errors.As(err, &r):
			return fmt.Errorf("its host %s resolves to %s, which is %s", u.Hostname(), r.ip, r.what)
		default:
			return err
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
