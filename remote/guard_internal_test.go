package remote

import (
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// TestRefusal checks each prefix of the policy table: addresses at its
// edges fall under it, and the addresses just outside it do not (they are
// allowed or refused for another reason). want is a part of the reason
// refusal gives, "" for an address that is allowed.
func TestRefusal(t *testing.T) {
	const (
		ok       = ""
		private  = "private-use"
		unusedV6 = "outside the global unicast"
		ietf6    = "IETF protocol assignment (RFC 2928)"
	)
	cases := []struct{ addr, want string }{
		// 0.0.0.0/8
		{"0.0.0.0", "this network"}, {"0.255.255.255", "this network"}, {"1.0.0.0", ok},
		// 10.0.0.0/8
		{"9.255.255.255", ok}, {"10.0.0.0", private}, {"10.255.255.255", private}, {"11.0.0.0", ok},
		// 100.64.0.0/10 and the Alibaba Cloud metadata address inside it
		{"100.63.255.255", ok}, {"100.64.0.0", "carrier-grade NAT"}, {"100.127.255.255", "carrier-grade NAT"}, {"100.128.0.0", ok},
		{"100.100.100.199", "carrier-grade NAT"}, {"100.100.100.200", "Alibaba"}, {"100.100.100.201", "carrier-grade NAT"},
		// 127.0.0.0/8
		{"126.255.255.255", ok}, {"127.0.0.0", "loopback"}, {"127.0.0.1", "loopback"}, {"127.255.255.255", "loopback"}, {"128.0.0.0", ok},
		// 168.63.129.16/32
		{"168.63.129.15", ok}, {"168.63.129.16", "WireServer"}, {"168.63.129.17", ok},
		// 169.254.0.0/16 and 169.254.169.254/32
		{"169.253.255.255", ok}, {"169.254.0.0", "link-local address (RFC 3927)"}, {"169.254.255.255", "link-local address (RFC 3927)"}, {"169.255.0.0", ok},
		{"169.254.169.253", "link-local"}, {"169.254.169.254", "cloud metadata"}, {"169.254.169.255", "link-local"},
		// 172.16.0.0/12
		{"172.15.255.255", ok}, {"172.16.0.0", private}, {"172.31.255.255", private}, {"172.32.0.0", ok},
		// 192.0.0.0/24, anycast addresses included
		{"191.255.255.255", ok}, {"192.0.0.0", "RFC 6890"}, {"192.0.0.9", "RFC 6890"}, {"192.0.0.10", "RFC 6890"},
		{"192.0.0.170", "RFC 6890"}, {"192.0.0.192", "RFC 6890"}, {"192.0.0.255", "RFC 6890"}, {"192.0.1.0", ok},
		// 192.0.2.0/24
		{"192.0.1.255", ok}, {"192.0.2.0", "TEST-NET-1"}, {"192.0.2.255", "TEST-NET-1"}, {"192.0.3.0", ok},
		// 192.88.99.0/24
		{"192.88.98.255", ok}, {"192.88.99.0", "6to4 relay"}, {"192.88.99.255", "6to4 relay"}, {"192.88.100.0", ok},
		// 192.168.0.0/16
		{"192.167.255.255", ok}, {"192.168.0.0", private}, {"192.168.255.255", private}, {"192.169.0.0", ok},
		// 198.18.0.0/15
		{"198.17.255.255", ok}, {"198.18.0.0", "benchmarking"}, {"198.19.255.255", "benchmarking"}, {"198.20.0.0", ok},
		// 198.51.100.0/24
		{"198.51.99.255", ok}, {"198.51.100.0", "TEST-NET-2"}, {"198.51.100.255", "TEST-NET-2"}, {"198.51.101.0", ok},
		// 203.0.113.0/24
		{"203.0.112.255", ok}, {"203.0.113.0", "TEST-NET-3"}, {"203.0.113.255", "TEST-NET-3"}, {"203.0.114.0", ok},
		// 224.0.0.0/4, 240.0.0.0/4 and 255.255.255.255/32
		{"223.255.255.255", ok}, {"224.0.0.0", "multicast"}, {"239.255.255.255", "multicast"}, {"240.0.0.0", "reserved"},
		{"255.255.255.254", "reserved"}, {"255.255.255.255", "limited broadcast"},
		// Registry entries marked globally reachable, and public addresses.
		{"192.31.196.1", ok}, {"192.52.193.1", ok}, {"192.175.48.1", ok}, {"8.8.8.8", ok}, {"1.1.1.1", ok},

		// ::/0 outside 2000::/3, ::/128 and ::1/128
		{"::", "unspecified"}, {"::1", "loopback address (RFC 4291)"}, {"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", unusedV6},
		{"4000::", unusedV6}, {"e000::", unusedV6},
		// ::/96 (IPv4-compatible; ::2 carries 0.0.0.2)
		{"::2", "IPv4-compatible"}, {"::7f00:1", "IPv4-compatible"}, {"::ffff:ffff", "IPv4-compatible"}, {"::808:808", ok}, {"::1:0:0", unusedV6},
		// ::ffff:0:0/96 (IPv4-mapped)
		{"::fffe:ffff:ffff", unusedV6}, {"::ffff:0:0", "IPv4-mapped"}, {"::ffff:127.0.0.1", "IPv4-mapped"}, {"::ffff:8.8.8.8", ok}, {"::1:0:0:0", unusedV6},
		// ::ffff:0:0:0/96 (IPv4-translated)
		{"::fffe:ffff:ffff:ffff", unusedV6}, {"::ffff:0:7f00:1", "IPv4-translated"}, {"::ffff:0:808:808", ok}, {"::ffff:1:0:0", unusedV6},
		// 64:ff9b::/96 (NAT64)
		{"64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", unusedV6}, {"64:ff9b::7f00:1", "a NAT64 address"}, {"64:ff9b::808:808", ok}, {"64:ff9b::1:0:0", unusedV6},
		// 64:ff9b:1::/48 (local-use NAT64), whatever it carries
		{"64:ff9b:0:ffff:ffff:ffff:ffff:ffff", unusedV6}, {"64:ff9b:1::", "local-use NAT64"}, {"64:ff9b:1::808:808", "local-use NAT64"},
		{"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "local-use NAT64"}, {"64:ff9b:2::", unusedV6},
		// 100::/64 and 100:0:0:1::/64
		{"ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", unusedV6}, {"100::", "discard-only"}, {"100::ffff:ffff:ffff:ffff", "discard-only"},
		{"100:0:0:1::", "dummy"}, {"100:0:0:1:ffff:ffff:ffff:ffff", "dummy"}, {"100:0:0:2::", unusedV6},
		// 2001::/23, the anycast addresses inside it, and 2001::/32 (Teredo; 2001:: carries server 0.0.0.0)
		{"2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ok}, {"2001::", "Teredo"}, {"2001:0:ffff:ffff:ffff:ffff:ffff:ffff", "Teredo"},
		{"2001:1::", ietf6}, {"2001:1::1", ietf6}, {"2001:1::2", ietf6}, {"2001:1::3", ietf6},
		{"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", ietf6}, {"2001:200::", ok},
		// 2001:2::/48
		{"2001:1:ffff:ffff:ffff:ffff:ffff:ffff", ietf6}, {"2001:2::", "benchmarking address (RFC 5180)"},
		{"2001:2:0:ffff:ffff:ffff:ffff:ffff", "benchmarking address (RFC 5180)"}, {"2001:2:1::", ietf6},
		// Carved out of 2001::/23: 2001:3::/32, 2001:4:112::/48, 2001:20::/28, 2001:30::/28
		{"2001:2:ffff:ffff:ffff:ffff:ffff:ffff", ietf6}, {"2001:3::", ok}, {"2001:3:ffff:ffff:ffff:ffff:ffff:ffff", ok}, {"2001:4::", ietf6},
		{"2001:4:111:ffff:ffff:ffff:ffff:ffff", ietf6}, {"2001:4:112::", ok}, {"2001:4:112:ffff:ffff:ffff:ffff:ffff", ok}, {"2001:4:113::", ietf6},
		{"2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", ietf6}, {"2001:20::", ok}, {"2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", ok},
		{"2001:30::", ok}, {"2001:3f:ffff:ffff:ffff:ffff:ffff:ffff", ok}, {"2001:40::", ietf6},
		// 2001:db8::/32
		{"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", ok}, {"2001:db8::", "RFC 3849"}, {"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "RFC 3849"}, {"2001:db9::", ok},
		// 2002::/16 (6to4; the edges carry 0.0.0.0 and 255.255.255.255)
		{"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ok}, {"2002::", "6to4"}, {"2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "6to4"}, {"2003::", ok},
		// 3fff::/20
		{"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ok}, {"3fff::", "RFC 9637"}, {"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", "RFC 9637"}, {"3fff:1000::", ok},
		// 5f00::/16
		{"5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", unusedV6}, {"5f00::", "segment routing"}, {"5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "segment routing"}, {"5f01::", unusedV6},
		// fc00::/7 and the AWS metadata address inside it
		{"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", unusedV6}, {"fc00::", "unique-local"}, {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "unique-local"}, {"fe00::", unusedV6},
		{"fd00:ec2::253", "unique-local"}, {"fd00:ec2::254", "AWS"}, {"fd00:ec2::255", "unique-local"},
		// fe80::/10, zones included
		{"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", unusedV6}, {"fe80::", "link-local address (RFC 4291)"}, {"fe80::1%eth0", "link-local address (RFC 4291)"},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "link-local address (RFC 4291)"},
		// fec0::/10
		{"fec0::", "site-local"}, {"feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "site-local"},
		// ff00::/8
		{"ff00::", "multicast address (RFC 4291)"}, {"ff02::1%eth0", "multicast address (RFC 4291)"}, {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "multicast address (RFC 4291)"},
		// Global unicast.
		{"2000::", ok}, {"2606:4700:4700::1111", ok}, {"2a00:1450:4001::1", ok}, {"3ffe::", ok},
	}
	for _, c := range cases {
		ip := netip.MustParseAddr(c.addr)
		got := refusal(ip)
		if c.want == ok && got != "" || c.want != ok && !strings.Contains(got, c.want) {
			t.Errorf("refusal(%s) = %q, want %q", c.addr, got, c.want)
		}
		if Allowed(ip) != (c.want == ok) {
			t.Errorf("Allowed(%s) = %v, want %v", c.addr, Allowed(ip), c.want == ok)
		}
	}
}

// embed writes v4 into an address of the given IPv6 form. Teredo carries
// two IPv4 addresses; the other one is a public address.
func embed(form string, v4 netip.Addr) netip.Addr {
	a, public := v4.As4(), [4]byte{8, 8, 4, 4}
	var b [16]byte
	switch form {
	case "IPv4-mapped":
		b[10], b[11] = 0xff, 0xff
		copy(b[12:], a[:])
	case "IPv4-compatible":
		copy(b[12:], a[:])
	case "IPv4-translated":
		b[8], b[9] = 0xff, 0xff
		copy(b[12:], a[:])
	case "NAT64":
		b[1], b[2], b[3] = 0x64, 0xff, 0x9b
		copy(b[12:], a[:])
	case "6to4":
		b[0], b[1] = 0x20, 0x02
		copy(b[2:6], a[:])
	case "Teredo server", "Teredo client":
		server, client := a, public
		if form == "Teredo client" {
			server, client = public, a
		}
		b[0], b[1] = 0x20, 0x01
		copy(b[4:8], server[:])
		for i := range 4 {
			b[12+i] = ^client[i]
		}
	default:
		panic("embed: unknown form " + form)
	}
	return netip.AddrFrom16(b)
}

// Every IPv6 form that embeds IPv4 is judged by the IPv4 address it
// carries.
func TestEmbeddedIPv4(t *testing.T) {
	forms := []struct{ form, name string }{
		{"IPv4-mapped", "IPv4-mapped"}, {"IPv4-compatible", "IPv4-compatible"}, {"IPv4-translated", "IPv4-translated"},
		{"NAT64", "NAT64"}, {"6to4", "6to4"}, {"Teredo server", "Teredo"}, {"Teredo client", "Teredo"},
	}
	carried := []struct{ v4, want string }{
		{"127.0.0.1", "loopback"}, {"10.1.2.3", "private-use"}, {"169.254.169.254", "cloud metadata"}, {"203.0.113.9", "TEST-NET-3"}, {"93.184.215.14", ""},
	}
	for _, f := range forms {
		for _, c := range carried {
			ip := embed(f.form, netip.MustParseAddr(c.v4))
			got := refusal(ip)
			switch {
			case c.want == "" && got != "":
				t.Errorf("%s carrying %s: refusal(%s) = %q, want allowed", f.form, c.v4, ip, got)
			case c.want != "" && !(strings.Contains(got, f.name) && strings.Contains(got, c.v4) && strings.Contains(got, c.want)):
				t.Errorf("%s carrying %s: refusal(%s) = %q, want it to name %q, %s and %q", f.form, c.v4, ip, got, f.name, c.v4, c.want)
			}
		}
	}
}

// The extraction agrees with worked examples from elsewhere: RFC 4380's
// layout as Wikipedia's Teredo article decodes it, and RFC 3056 §2.
func TestEmbeddedExtraction(t *testing.T) {
	for _, c := range []struct {
		addr string
		want []string
	}{
		{"2001:0000:4136:e378:8000:63bf:3fff:fdd2", []string{"65.54.227.120", "192.0.2.45"}},
		{"2002:c000:0204::1", []string{"192.0.2.4"}},
		{"::ffff:192.0.2.128", []string{"192.0.2.128"}},
		{"64:ff9b::192.0.2.33", []string{"192.0.2.33"}}, // RFC 6052 §2.4
	} {
		ip := netip.MustParseAddr(c.addr)
		r, ok := match(ip)
		if !ok || r.verdict != embeds {
			t.Fatalf("match(%s) = %+v, %v, want an embedding rule", c.addr, r, ok)
		}
		var got []string
		for _, a := range r.ipv4(ip) {
			got = append(got, a.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("IPv4 in %s = %v, want %v", c.addr, got, c.want)
		}
	}
}

// The table is well formed: canonical prefixes, no duplicates, an
// extractor exactly on the embedding rules.
func TestRulesWellFormed(t *testing.T) {
	seen := map[netip.Prefix]bool{}
	for _, r := range rules {
		if r.prefix != r.prefix.Masked() {
			t.Errorf("rule %s is not canonical (%s)", r.prefix, r.prefix.Masked())
		}
		if seen[r.prefix] {
			t.Errorf("rule %s appears twice", r.prefix)
		}
		seen[r.prefix] = true
		if (r.verdict == embeds) != (r.ipv4 != nil) {
			t.Errorf("rule %s: verdict %d with extractor %v", r.prefix, r.verdict, r.ipv4 != nil)
		}
		if r.name == "" {
			t.Errorf("rule %s has no name", r.prefix)
		}
	}
}

// The host's own addresses are refused, also when carried in an IPv6 form,
// and the guard fails closed when they cannot be listed. The addresses are
// public ones standing in for this host's, so that only the host rule can
// refuse them.
func TestHostAddressesRefused(t *testing.T) {
	c := New(Options{})
	t.Cleanup(c.Close)
	var lookupErr error
	c.interfaceAddrs = func() ([]net.Addr, error) {
		return []net.Addr{
			&net.IPNet{IP: net.ParseIP("8.8.4.4"), Mask: net.CIDRMask(24, 32)}, // 16-byte form, as on Linux
			&net.IPNet{IP: net.ParseIP("2606:4700::6810:84e5"), Mask: net.CIDRMask(64, 128)},
			&net.IPAddr{IP: net.ParseIP("1.0.0.1")},
		}, lookupErr
	}
	for _, tc := range []struct {
		address, want string // want: a part of the error, "" for none
	}{
		{"8.8.4.4:443", "8.8.4.4 is an address of this host"},
		{"[::ffff:8.8.4.4]:443", "is an address of this host"}, // the same address
		{"[64:ff9b::808:404]:443", "carries 8.8.4.4"},
		{"[2002:808:404::1]:443", "carries 8.8.4.4"},
		{"[2606:4700::6810:84e5]:443", "is an address of this host"},
		{"1.0.0.1:80", "is an address of this host"},
		{"8.8.4.5:443", ""}, // same subnet, another host
		{"8.8.8.8:443", ""},
		{"127.0.0.1:80", "loopback"},
	} {
		err := c.checkDial("tcp", tc.address, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkDial(%s) = %v, want nil", tc.address, err)
		case tc.want != "" && (!errors.Is(err, ErrForbiddenAddress) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("checkDial(%s) = %v, want ErrForbiddenAddress mentioning %q", tc.address, err, tc.want)
		}
	}
	lookupErr = errors.New("netlink unavailable")
	if err := c.checkDial("tcp", "8.8.8.8:443", nil); err == nil || errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("checkDial with a failing interface lookup = %v, want a lookup error", err)
	}
	open := New(Options{AllowPrivate: true})
	t.Cleanup(open.Close)
	open.interfaceAddrs = c.interfaceAddrs
	for _, address := range []string{"8.8.4.4:443", "127.0.0.1:80", "[fe80::1%eth0]:80"} {
		if err := open.checkDial("tcp", address, nil); err != nil {
			t.Errorf("checkDial(%s) with AllowPrivate = %v, want nil", address, err)
		}
	}
}
