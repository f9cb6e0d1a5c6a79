package webhooks

import (
	"net"
	"net/netip"
	"strings"
	"testing"
)

// guardCases map an address to a word of its refusal, or "" when it is
// public.
var guardCases = map[string]string{
	// public
	"8.8.8.8": "", "1.1.1.1": "", "192.0.0.9": "", "192.31.196.1": "", "192.175.48.1": "",
	"2606:4700:4700::1111": "", "2001:4860:4860::8888": "", "2001:4:112::1": "", "2001:3::1": "",
	"64:ff9b::808:808": "", "2002:808:808::1": "", "::ffff:8.8.8.8": "",
	// IPv4 special-purpose ranges
	"0.0.0.0": "unspecified", "0.1.2.3": "this network", "10.0.0.1": "private", "100.64.0.1": "shared",
	"127.0.0.1": "loopback", "127.255.255.254": "loopback", "169.254.169.254": "link-local",
	"172.16.0.1": "private", "172.31.255.255": "private", "192.168.1.1": "private",
	"192.0.0.1": "IETF", "192.0.0.170": "IETF", "192.0.2.1": "documentation", "198.51.100.7": "documentation",
	"203.0.113.9": "documentation", "198.18.0.1": "benchmarking", "198.19.255.255": "benchmarking",
	"192.88.99.1": "6to4 relay", "224.0.0.1": "multicast", "239.255.255.250": "multicast",
	"240.0.0.1": "reserved", "254.1.2.3": "reserved", "255.255.255.255": "broadcast",
	// IPv6 special-purpose ranges
	"::": "unspecified", "::1": "loopback", "::127.0.0.1": "IPv4-compatible", "::8.8.8.8": "IPv4-compatible",
	"::ffff:127.0.0.1": "loopback", "::ffff:10.0.0.1": "private",
	"64:ff9b:1::1": "local-use", "100::1": "discard", "2001::1": "Teredo", "2001:2::1": "IETF",
	"2001:db8::1": "documentation", "3fff::1": "documentation", "5f00::1": "segment routing",
	"fc00::1": "unique local", "fd12:3456::1": "unique local", "fe80::1": "link-local", "fe80::1%eth0": "link-local",
	"fec0::1": "site-local", "ff02::1": "multicast", "4000::1": "global unicast", "1::1": "global unicast",
	// IPv4 embedded in NAT64 and 6to4
	"64:ff9b::127.0.0.1": "NAT64 address of 127.0.0.1, a loopback", "64:ff9b::a00:1": "NAT64 address of 10.0.0.1",
	"64:ff9b::169.254.169.254": "link-local", "64:ff9b::c0a8:101": "private",
	"2002:7f00:1::1": "6to4 address of 127.0.0.1", "2002:a9fe:a9fe::": "link-local", "2002:c0a8:0101::1": "private",
	"2002:0:0::1": "6to4 address of 0.0.0.0, an unspecified",
}

// TestPublicAddress: every IANA special-purpose range that is not globally
// reachable is refused, with the IPv4 address embedded in IPv4-mapped,
// NAT64 and 6to4 addresses decoded; the registries' global entries and
// public addresses pass.
func TestPublicAddress(t *testing.T) {
	for raw, want := range guardCases {
		err := publicAddress(netip.MustParseAddr(raw))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused (%v), want it public", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want a refusal saying %q", raw, err, want)
		}
	}
}

// TestDialGuard: the dialer's guard refuses the same addresses when a
// delivery dials them, before any packet is sent.
func TestDialGuard(t *testing.T) {
	t.Setenv(AllowPrivateEnv, "")
	d := &net.Dialer{Control: guardedControl}
	for raw, want := range guardCases {
		if want == "" || strings.Contains(raw, "%") {
			continue
		}
		_, err := d.Dial("tcp", net.JoinHostPort(raw, "9"))
		if err == nil || !strings.Contains(err.Error(), "refused to dial") {
			t.Errorf("dial %s: %v, want it refused by the guard", raw, err)
		}
	}
}
