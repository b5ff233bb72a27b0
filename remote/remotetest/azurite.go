// Package remotetest runs local stand-ins for the remote sources of
// package remote, for tests only.
//
// StartAzurite runs Azurite, Microsoft's Azure storage emulator, for
// Azure blob imports. Azurite is a Node.js program: StartAzurite installs
// a pinned version with npm into the user cache directory the first time
// (about half a minute, 365 MB) and reuses it afterwards; starting it
// takes one to four seconds. Without node or npm, or when the install
// fails, the test is skipped, unless the CI environment variable is set:
// CI must really run these tests, so there it fails.
package remotetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// AzuriteVersion is the npm version of azurite that StartAzurite installs.
// 3.37 declares node >= 22 but its blob service runs on node 20.
const AzuriteVersion = "3.37.0"

// The well-known development storage account, published by Microsoft.
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Azurite is a running Azurite blob service on 127.0.0.1. It stops when
// the test that started it ends.
type Azurite struct {
	// Endpoint is the blob endpoint, http://127.0.0.1:port/devstoreaccount1.
	Endpoint string
	// ConnectionString is the account-key connection string for Endpoint.
	ConnectionString string

	cred   *azblob.SharedKeyCredential
	client *azblob.Client
}

// StartAzurite starts an Azurite blob service with its data in a
// temporary directory and stops it (its whole process group) in
// t.Cleanup. The service also exits by itself if the test process dies
// without cleaning up, because it watches its stdin, a pipe from this
// process.
func StartAzurite(t testing.TB) *Azurite {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "node is not installed: %v", err)
	}
	main := installAzurite(t)

	// Loading the stdin watchdog with -r keeps main.js's argv intact.
	watchdog := filepath.Join(t.TempDir(), "watchdog.js")
	// unref: the watch must not keep node alive after azurite closes.
	const js = "process.stdin.on('end', () => process.exit(0)); process.stdin.on('error', () => process.exit(0)); process.stdin.resume(); process.stdin.unref();\n"
	if err := os.WriteFile(watchdog, []byte(js), 0o644); err != nil {
		t.Fatalf("StartAzurite: %v", err)
	}

	var lastErr error
	for range 3 { // the free port may be taken before azurite binds it
		port, err := freePort()
		if err != nil {
			t.Fatalf("StartAzurite: %v", err)
		}
		a, err := runAzurite(t, node, watchdog, main, port)
		if err == nil {
			return a
		}
		lastErr = err
	}
	t.Fatalf("StartAzurite: %v", lastErr)
	return nil
}

func runAzurite(t testing.TB, node, watchdog, main string, port int) (*Azurite, error) {
	cmd := exec.Command(node, "-r", watchdog, main,
		"--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
		"--location", t.TempDir(),
		"--silent", "--skipApiVersionCheck", "--loose", "--disableTelemetry", "--disableProductStyleUrl")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting azurite: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	// Idle keep-alive connections would make azurite's graceful close
	// wait; they are closed first.
	transport := &http.Transport{Proxy: nil}
	stop := func() {
		transport.CloseIdleConnections()
		pgid := cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-exited
		}
		_ = stdin.Close()
	}

	endpoint := fmt.Sprintf("http://127.0.0.1:%d/%s", port, AzuriteAccount)
	deadline := time.After(60 * time.Second)
	for {
		// Any HTTP answer (403 for an unsigned request) means it listens.
		resp, err := (&http.Client{Transport: transport}).Get(endpoint + "?comp=list")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("azurite exited before listening on port %d:\n%s", port, out.String())
		case <-deadline:
			stop()
			return nil, fmt.Errorf("azurite did not listen on port %d within 60s:\n%s", port, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Cleanup(func() {
		start := time.Now()
		stop()
		t.Logf("azurite stopped in %v", time.Since(start).Round(time.Millisecond))
	})
	t.Logf("azurite %s listening on 127.0.0.1:%d after %v", AzuriteVersion, port, time.Since(start).Round(time.Millisecond))

	a := &Azurite{
		Endpoint: endpoint,
		ConnectionString: "DefaultEndpointsProtocol=http;AccountName=" + AzuriteAccount +
			";AccountKey=" + AzuriteKey + ";BlobEndpoint=" + endpoint + ";",
	}
	a.cred, err = azblob.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
	if err != nil {
		t.Fatalf("StartAzurite: %v", err)
	}
	a.client, err = azblob.NewClientWithSharedKeyCredential(endpoint+"/", a.cred, &azblob.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: &http.Client{Transport: transport}},
	})
	if err != nil {
		t.Fatalf("StartAzurite: %v", err)
	}
	return a, nil
}

// SASConnectionString returns a BlobEndpoint=…;SharedAccessSignature=…
// connection string granting read and list on container for an hour.
func (a *Azurite) SASConnectionString(t testing.TB, container string) string {
	t.Helper()
	qp, err := sas.BlobSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		StartTime:     time.Now().Add(-5 * time.Minute).UTC(),
		ExpiryTime:    time.Now().Add(time.Hour).UTC(),
		Permissions:   (&sas.ContainerPermissions{Read: true, List: true}).String(),
		ContainerName: container,
	}.SignWithSharedKey(a.cred)
	if err != nil {
		t.Fatalf("SASConnectionString(%q): %v", container, err)
	}
	return "BlobEndpoint=" + a.Endpoint + ";SharedAccessSignature=" + qp.Encode()
}

// CreateContainer creates a container.
func (a *Azurite) CreateContainer(t testing.TB, name string) {
	t.Helper()
	if _, err := a.client.CreateContainer(t.Context(), name, nil); err != nil {
		t.Fatalf("CreateContainer(%q): %v", name, err)
	}
}

// Put uploads body as a block blob with the given content type and
// encoding ("" leaves them unset).
func (a *Azurite) Put(t testing.TB, container, blobName string, body []byte, contentType, contentEncoding string) {
	t.Helper()
	h := &blob.HTTPHeaders{}
	if contentType != "" {
		h.BlobContentType = &contentType
	}
	if contentEncoding != "" {
		h.BlobContentEncoding = &contentEncoding
	}
	_, err := a.client.UploadBuffer(t.Context(), container, blobName, body, &azblob.UploadBufferOptions{HTTPHeaders: h})
	if err != nil {
		t.Fatalf("Put(%q, %q): %v", container, blobName, err)
	}
}

// unavailable skips the test, or fails it under CI.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := "azurite unavailable: " + fmt.Sprintf(format, args...)
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal(msg + " (CI is set, so this fails instead of skipping)")
	}
	t.Skip(msg)
}

var installMu sync.Mutex

// installAzurite returns the path of azurite's blob main.js, installing
// it first if needed. Concurrent test processes each install into a
// private directory and rename it into place; the first rename wins and
// the others discard their copy, so no lock can be left stale.
func installAzurite(t testing.TB) string {
	t.Helper()
	installMu.Lock()
	defer installMu.Unlock()

	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "vatic-test", "azurite-"+AzuriteVersion)
	main := filepath.Join(dir, "node_modules", "azurite", "dist", "src", "blob", "main.js")
	if _, err := os.Stat(main); err == nil {
		return main
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable(t, "npm is not installed: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		unavailable(t, "cache directory: %v", err)
	}
	// Installs interrupted by a killed process leave their directory.
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".azurite-install-*"))
	for _, d := range stale {
		if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) > time.Hour {
			_ = os.RemoveAll(d)
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".azurite-install-")
	if err != nil {
		unavailable(t, "cache directory: %v", err)
	}
	defer os.RemoveAll(tmp)

	t.Logf("installing azurite %s into %s (once)", AzuriteVersion, dir)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-save",
		"--loglevel=error", "--prefix", tmp, "azurite@"+AzuriteVersion)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		unavailable(t, "npm install azurite@%s: %v\n%s", AzuriteVersion, err, out.String())
	}
	if _, err := os.Stat(filepath.Join(tmp, "node_modules", "azurite", "dist", "src", "blob", "main.js")); err != nil {
		unavailable(t, "npm install azurite@%s did not produce the blob service: %v", AzuriteVersion, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(main); statErr != nil {
			unavailable(t, "moving the azurite install into place: %v", err)
		}
		// Another process finished first; use its copy.
	}
	t.Logf("installed azurite in %v", time.Since(start).Round(time.Second))
	return main
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer collects azurite's output for error messages.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
