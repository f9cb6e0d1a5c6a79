package webhooks

import "net/netip"

// specialRange is a range of addresses that a webhook may not reach.
type specialRange struct {
	prefix netip.Prefix
	what   string // "a loopback address"
}

// specialRanges are the ranges of IANA's IPv4 and IPv6 Special-Purpose
// Address Registries that are not globally reachable (RFC 6890 and its
// updates), with multicast, the limited broadcast and the deprecated
// site-local and IPv4-compatible IPv6 forms. The registries' globally
// reachable entries inside them are listed in globalExceptions.
var specialRanges = []specialRange{
	// IPv4
	{pfx("0.0.0.0/32"), "an unspecified address"},
	{pfx("0.0.0.0/8"), `in "this network" (0.0.0.0/8)`},
	{pfx("10.0.0.0/8"), "a private address"},
	{pfx("100.64.0.0/10"), "a private address (shared address space)"},
	{pfx("127.0.0.0/8"), "a loopback address"},
	{pfx("169.254.0.0/16"), "a link-local address"},
	{pfx("172.16.0.0/12"), "a private address"},
	{pfx("192.0.0.0/24"), "an IETF protocol assignment (192.0.0.0/24)"},
	{pfx("192.0.2.0/24"), "a documentation address (TEST-NET-1)"},
	{pfx("192.88.99.0/24"), "a deprecated 6to4 relay anycast address"},
	{pfx("192.168.0.0/16"), "a private address"},
	{pfx("198.18.0.0/15"), "a benchmarking address (198.18.0.0/15)"},
	{pfx("198.51.100.0/24"), "a documentation address (TEST-NET-2)"},
	{pfx("203.0.113.0/24"), "a documentation address (TEST-NET-3)"},
	{pfx("224.0.0.0/4"), "a multicast address"},
	{pfx("255.255.255.255/32"), "the limited broadcast address"},
	{pfx("240.0.0.0/4"), "a reserved address (240.0.0.0/4)"},
	// IPv6
	{pfx("::/128"), "an unspecified address"},
	{pfx("::1/128"), "a loopback address"},
	{pfx("::/96"), "a deprecated IPv4-compatible address"},
	{pfx("64:ff9b:1::/48"), "a local-use IPv4/IPv6 translation address"},
	{pfx("100::/64"), "a discard-only address"},
	{pfx("100:0:0:1::/64"), "a dummy address"},
	{pfx("2001::/23"), "an IETF protocol assignment (2001::/23, Teredo included)"},
	{pfx("2001:db8::/32"), "a documentation address"},
	{pfx("3fff::/20"), "a documentation address"},
	{pfx("5f00::/16"), "a segment routing (SRv6) address"},
	{pfx("fc00::/7"), "a private address (unique local)"},
	{pfx("fe80::/10"), "a link-local address"},
	{pfx("fec0::/10"), "a site-local address (deprecated)"},
	{pfx("ff00::/8"), "a multicast address"},
}

// globalExceptions are the registries' globally reachable entries inside
// the ranges above.
var globalExceptions = []netip.Prefix{
	pfx("192.0.0.9/32"), pfx("192.0.0.10/32"), // PCP and TURN anycast
	pfx("2001:1::1/128"), pfx("2001:1::2/128"), pfx("2001:1::3/128"), // PCP, TURN and DNS-SD SRP anycast
	pfx("2001:3::/32"),     // AMT
	pfx("2001:4:112::/48"), // AS112-v6
	pfx("2001:20::/28"),    // ORCHIDv2
	pfx("2001:30::/28"),    // Drone Remote ID
}

// globalUnicast6 is the only IPv6 space allocated for global unicast.
var globalUnicast6 = pfx("2000::/3")

// The forms that embed an IPv4 address in an IPv6 one, decoded and checked.
var (
	nat64  = pfx("64:ff9b::/96")
	sixTo4 = pfx("2002::/16")
)

// embeddedIPv4 decodes the IPv4 address that ip carries in the well-known
// NAT64 prefix (its last 32 bits) or in 6to4 (bits 16 to 48).
func embeddedIPv4(ip netip.Addr) (embedded netip.Addr, how string, ok bool) {
	b := ip.As16()
	switch {
	case !ip.Is6():
		return netip.Addr{}, "", false
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), "a NAT64 address", true
	case sixTo4.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), "a 6to4 address", true
	}
	return netip.Addr{}, "", false
}

// globalException reports whether ip is a globally reachable entry inside a
// special range.
func globalException(ip netip.Addr) bool {
	for _, p := range globalExceptions {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// pfx parses a prefix of the tables.
func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
