package remotetest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// HostAddr returns an address of one of this host's interfaces that is
// neither loopback nor link-local (which would need a zone in a URL),
// preferring IPv4. The test is skipped when there is none.
func HostAddr(t testing.TB) netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("net.InterfaceAddrs: %v", err)
	}
	var found netip.Addr
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		if ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() {
			continue
		}
		if ip.Is4() {
			return ip
		}
		if !found.IsValid() {
			found = ip
		}
	}
	if !found.IsValid() {
		t.Skip("this host has no interface address besides loopback and link-local")
	}
	return found
}

// ServeHost serves h on all interfaces (0.0.0.0:0) and returns its base
// URL through HostAddr: a server this host reaches through its own
// interface address rather than loopback. The test is skipped when there
// is no such address or it cannot be reached; t.Cleanup stops the server.
func ServeHost(t testing.TB, h http.Handler) string {
	t.Helper()
	ip := HostAddr(t)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatalf("listen on 0.0.0.0:0: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	hostPort := net.JoinHostPort(ip.String(), port)
	c, err := net.DialTimeout("tcp", hostPort, 5*time.Second)
	if err != nil {
		t.Skipf("this host's address %s is not reachable from itself: %v", ip, err)
	}
	c.Close()
	return "http://" + hostPort
}
