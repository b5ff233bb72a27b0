package remote

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// The guard decides, for every connection a Client opens, whether its
// destination may be contacted. Unless Options.AllowPrivate is set, a
// destination is refused when
//
//   - it falls in a prefix of the policy table below (the IANA IPv4 and IPv6
//     Special-Purpose Address Registries, multicast, and a few cloud
//     metadata endpoints), or carries, in one of the IPv6 forms that embed
//     an IPv4 address, an IPv4 address the table refuses; or
//   - it is, or carries, an address of one of this host's interfaces: a
//     server with a public address reaches itself through that address as
//     surely as through 127.0.0.1.
//
// The check runs in net.Dialer.Control, with the IP actually being dialled,
// after DNS resolution and on every redirect, so neither a DNS name nor a
// redirect can steer around it.

// verdict is what a rule says of the addresses in its prefix.
type verdict uint8

const (
	// refuse: never contacted.
	refuse verdict = iota
	// allow: a globally reachable block carved out of a larger refused one.
	allow
	// embeds: the address carries IPv4 addresses (see rule.ipv4), each
	// judged by the IPv4 rules; it is refused when any of them is.
	embeds
)

// rule is one row of the policy table.
type rule struct {
	prefix  netip.Prefix
	verdict verdict
	name    string                        // what the prefix is, for the error chain
	ipv4    func(netip.Addr) []netip.Addr // for embeds: the IPv4 addresses carried
}

// rules is the policy table the guard applies; the most specific prefix that
// contains an address decides (longest match), so a row may refine a
// larger one.
//
// The source is the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (https://www.iana.org/assignments/iana-ipv4-special-registry,
// https://www.iana.org/assignments/iana-ipv6-special-registry). The rule:
// every registry entry not marked "Globally Reachable: True" is refused.
// Departures from it towards refusing:
//
//   - 192.0.0.0/24 and 2001::/23 are refused whole, with the anycast
//     addresses inside them that the registry marks globally reachable
//     (PCP 192.0.0.9 and 2001:1::1, TURN 192.0.0.10 and 2001:1::2, DNS-SD
//     SRP 2001:1::3): an anycast service address reaches whichever server
//     is nearest, which is often on the local network. The globally
//     reachable delegations inside 2001::/23 (AMT, AS112, ORCHIDv2, drone
//     remote ID) are carved out again.
//   - Multicast (224.0.0.0/4, ff00::/8), IPv6 site-local (fec0::/10,
//     deprecated) and all IPv6 outside 2000::/3 (not allocated for global
//     unicast) come from other registries and are refused too.
//   - Cloud metadata endpoints: Azure's WireServer 168.63.129.16, a
//     public address, and the ones inside refused ranges, named for the
//     error chain.
//
// The one departure towards allowing: the forms that embed an IPv4
// address, which a translator, a tunnel or the kernel itself turns into
// that IPv4 destination, are judged by the IPv4 address they carry, not
// refused whole. They are IPv4-mapped and IPv4-compatible addresses, the
// SIIT IPv4-translated form (RFC 2765, not in the registry), the NAT64
// well-known prefix, 6to4 and Teredo (server and client). The local-use
// NAT64 prefix 64:ff9b:1::/48 is not among them: where its addresses carry
// the IPv4 address depends on the prefix length the operator chose
// (RFC 6052 §2.2), so it is refused whole, as the registry has it.
var rules = []rule{
	// IPv4.
	{prefix: pfx("0.0.0.0/8"), name: "a \"this network\" address (RFC 791)"},
	{prefix: pfx("10.0.0.0/8"), name: "a private-use address (RFC 1918)"},
	{prefix: pfx("100.64.0.0/10"), name: "a shared (carrier-grade NAT) address (RFC 6598)"},
	{prefix: pfx("100.100.100.200/32"), name: "a cloud metadata address (Alibaba Cloud)"},
	{prefix: pfx("127.0.0.0/8"), name: "a loopback address (RFC 1122)"},
	// Azure's WireServer: a Microsoft public address that, from a VM,
	// reaches the host and hands out the VM's configuration.
	{prefix: pfx("168.63.129.16/32"), name: "a cloud host endpoint (Azure WireServer)"},
	{prefix: pfx("169.254.0.0/16"), name: "a link-local address (RFC 3927)"},
	{prefix: pfx("169.254.169.254/32"), name: "a cloud metadata address"},
	{prefix: pfx("172.16.0.0/12"), name: "a private-use address (RFC 1918)"},
	// Also DS-Lite (192.0.0.0/29), NAT64 discovery (192.0.0.170/31) and
	// Oracle Cloud's metadata endpoint (192.0.0.192).
	{prefix: pfx("192.0.0.0/24"), name: "an IETF protocol assignment (RFC 6890)"},
	{prefix: pfx("192.0.2.0/24"), name: "a documentation address (TEST-NET-1, RFC 5737)"},
	{prefix: pfx("192.88.99.0/24"), name: "a deprecated 6to4 relay anycast address (RFC 7526)"},
	{prefix: pfx("192.168.0.0/16"), name: "a private-use address (RFC 1918)"},
	{prefix: pfx("198.18.0.0/15"), name: "a benchmarking address (RFC 2544)"},
	{prefix: pfx("198.51.100.0/24"), name: "a documentation address (TEST-NET-2, RFC 5737)"},
	{prefix: pfx("203.0.113.0/24"), name: "a documentation address (TEST-NET-3, RFC 5737)"},
	{prefix: pfx("224.0.0.0/4"), name: "a multicast address (RFC 5771)"},
	{prefix: pfx("240.0.0.0/4"), name: "a reserved address (RFC 1112)"},
	{prefix: pfx("255.255.255.255/32"), name: "the limited broadcast address (RFC 919)"},

	// IPv6. Only 2000::/3 is allocated for global unicast (IANA IPv6
	// Address Space registry); what lies outside it and is not named below
	// is reserved and has no business being a destination.
	{prefix: pfx("::/0"), name: "an address outside the global unicast space (RFC 4291)"},
	{prefix: pfx("2000::/3"), verdict: allow, name: "global unicast"},
	{prefix: pfx("::/128"), name: "the unspecified address (RFC 4291)"},
	{prefix: pfx("::1/128"), name: "the loopback address (RFC 4291)"},
	{prefix: pfx("::/96"), verdict: embeds, ipv4: last32, name: "an IPv4-compatible address (RFC 4291)"},
	{prefix: pfx("::ffff:0:0/96"), verdict: embeds, ipv4: last32, name: "an IPv4-mapped address (RFC 4291)"},
	{prefix: pfx("::ffff:0:0:0/96"), verdict: embeds, ipv4: last32, name: "an IPv4-translated address (RFC 2765)"},
	{prefix: pfx("64:ff9b::/96"), verdict: embeds, ipv4: last32, name: "a NAT64 address (RFC 6052)"},
	{prefix: pfx("64:ff9b:1::/48"), name: "a local-use NAT64 address (RFC 8215)"},
	{prefix: pfx("100::/64"), name: "a discard-only address (RFC 6666)"},
	{prefix: pfx("100:0:0:1::/64"), name: "a dummy address (RFC 9780)"},
	{prefix: pfx("2001::/23"), name: "an IETF protocol assignment (RFC 2928)"},
	{prefix: pfx("2001::/32"), verdict: embeds, ipv4: teredo, name: "a Teredo address (RFC 4380)"},
	{prefix: pfx("2001:2::/48"), name: "a benchmarking address (RFC 5180)"},
	{prefix: pfx("2001:3::/32"), verdict: allow, name: "AMT (RFC 7450)"},
	{prefix: pfx("2001:4:112::/48"), verdict: allow, name: "AS112-v6 (RFC 7535)"},
	{prefix: pfx("2001:20::/28"), verdict: allow, name: "ORCHIDv2 (RFC 7343)"},
	{prefix: pfx("2001:30::/28"), verdict: allow, name: "drone remote ID (RFC 9374)"},
	{prefix: pfx("2001:db8::/32"), name: "a documentation address (RFC 3849)"},
	{prefix: pfx("2002::/16"), verdict: embeds, ipv4: sixToFour, name: "a 6to4 address (RFC 3056)"},
	{prefix: pfx("3fff::/20"), name: "a documentation address (RFC 9637)"},
	{prefix: pfx("5f00::/16"), name: "a segment routing SID (RFC 9602)"},
	{prefix: pfx("fc00::/7"), name: "a unique-local address (RFC 4193)"},
	{prefix: pfx("fd00:ec2::254/128"), name: "a cloud metadata address (AWS)"},
	{prefix: pfx("fe80::/10"), name: "a link-local address (RFC 4291)"},
	{prefix: pfx("fec0::/10"), name: "a site-local address (RFC 3879)"},
	{prefix: pfx("ff00::/8"), name: "a multicast address (RFC 4291)"},
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// last32 returns the IPv4 address in the low 32 bits.
func last32(ip netip.Addr) []netip.Addr {
	b := ip.As16()
	return []netip.Addr{netip.AddrFrom4([4]byte(b[12:16]))}
}

// sixToFour returns the IPv4 address of a 6to4 address, in bits 16–48.
func sixToFour(ip netip.Addr) []netip.Addr {
	b := ip.As16()
	return []netip.Addr{netip.AddrFrom4([4]byte(b[2:6]))}
}

// teredo returns the server (bits 32–64) and the client (the low 32 bits,
// inverted) of a Teredo address.
func teredo(ip netip.Addr) []netip.Addr {
	b := ip.As16()
	client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
	return []netip.Addr{netip.AddrFrom4([4]byte(b[4:8])), netip.AddrFrom4(client)}
}

// match returns the most specific rule whose prefix contains ip.
func match(ip netip.Addr) (rule, bool) {
	best := -1
	for i, r := range rules {
		if r.prefix.Contains(ip) && (best < 0 || r.prefix.Bits() > rules[best].prefix.Bits()) {
			best = i
		}
	}
	if best < 0 {
		return rule{}, false
	}
	return rules[best], true
}

// refusal says why the policy table refuses ip, or "" when it does not.
func refusal(ip netip.Addr) string {
	ip = ip.WithZone("") // Prefix.Contains never matches a zoned address
	r, ok := match(ip)
	switch {
	case !ok || r.verdict == allow:
		return ""
	case r.verdict == refuse:
		return r.name
	}
	for _, v4 := range r.ipv4(ip) {
		if why := refusal(v4); why != "" { // IPv4 rules never embed: one level deep
			return fmt.Sprintf("%s carrying %s, %s", r.name, v4, why)
		}
	}
	return ""
}

// carried returns ip and the IPv4 addresses it carries, if any, without
// zone or IPv4 mapping: the forms in which to look it up among the host's
// addresses.
func carried(ip netip.Addr) []netip.Addr {
	ip = ip.WithZone("")
	out := []netip.Addr{ip.Unmap()}
	if r, ok := match(ip); ok && r.verdict == embeds {
		out = append(out, r.ipv4(ip)...)
	}
	return out
}

// Allowed reports whether the policy table lets a destination IP be
// contacted when private addresses are not allowed. It does not know the
// host's own addresses, which a Client refuses as well.
func Allowed(ip netip.Addr) bool { return refusal(ip) == "" }

// hostAddrs returns the addresses of this host's interfaces, unmapped and
// without zones.
//
// They are looked up on every guarded dial, not cached: addresses come and
// go (DHCP, SLAAC temporary addresses, interfaces brought up later), a
// lookup costs about 40µs (net.InterfaceAddrs, one netlink dump on Linux),
// and a dial that passes the guard goes on to a TCP (and usually TLS)
// handshake with a remote host, which costs milliseconds. A cache would
// save little and leave a window in which a new address is not refused.
func (c *Client) hostAddrs() (map[netip.Addr]bool, error) {
	addrs, err := c.interfaceAddrs()
	if err != nil {
		return nil, err
	}
	own := make(map[netip.Addr]bool, len(addrs))
	for _, a := range addrs {
		var ip net.IP
		switch a := a.(type) {
		case *net.IPNet:
			ip = a.IP
		case *net.IPAddr:
			ip = a.IP
		}
		if ip, ok := netip.AddrFromSlice(ip); ok {
			own[ip.Unmap().WithZone("")] = true
		}
	}
	return own, nil
}

// checkDial runs for every connection, after DNS resolution, with the IP
// actually being dialled. When the host's addresses cannot be listed the
// dial fails: the guard fails closed.
func (c *Client) checkDial(network, address string, _ syscall.RawConn) error {
	if c.opts.AllowPrivate {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
	}
	if why := refusal(ip); why != "" {
		return fmt.Errorf("%w: %s is %s", ErrForbiddenAddress, ip, why)
	}
	own, err := c.hostAddrs()
	if err != nil {
		return fmt.Errorf("remote: list this host's addresses to check %s: %w", ip, err)
	}
	for i, a := range carried(ip) {
		switch {
		case own[a] && i == 0:
			return fmt.Errorf("%w: %s is an address of this host", ErrForbiddenAddress, ip)
		case own[a]:
			return fmt.Errorf("%w: %s carries %s, an address of this host", ErrForbiddenAddress, ip, a)
		}
	}
	return nil
}
