package remote_test

import (
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/vaticml/vatic/engine"
	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
)

// A server on this host, reached through the address of one of its
// interfaces rather than loopback, is refused by the guard and read with
// AllowPrivate.
func TestFetchHostAddress(t *testing.T) {
	base := remotetest.ServeHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		io.WriteString(w, "a\n1\n")
	}))
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	if ip := netip.MustParseAddr(u.Hostname()); remote.Allowed(ip) {
		t.Logf("%s is allowed by the policy table: only the host-address rule refuses it", ip)
	} else {
		t.Logf("%s is refused by the policy table already", ip)
	}
	spec := engine.ImportSpec{Kind: engine.ImportURL, URL: base + "/rows.csv"}

	guarded := remote.New(remote.Options{ConnectTimeout: 5 * time.Second})
	t.Cleanup(guarded.Close)
	runFetch(t, remote.NewFetcher(guarded), []fetchCase{{name: "guarded", spec: spec, wantErr: "this server's own"}})

	open := remote.New(remote.Options{AllowPrivate: true, ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	t.Cleanup(open.Close)
	runFetch(t, remote.NewFetcher(open), []fetchCase{{name: "allow private", spec: spec, body: "a\n1\n",
		want: engine.RemoteObject{Name: "rows.csv", ContentType: "text/csv"}}})
}
