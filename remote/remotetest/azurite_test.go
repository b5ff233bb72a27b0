package remotetest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/vaticml/vatic/remote/remotetest"
)

func TestStartAzurite(t *testing.T) {
	var endpoint string
	t.Run("run", func(t *testing.T) {
		az := remotetest.StartAzurite(t)
		endpoint = az.Endpoint
		az.CreateContainer(t, "box")
		az.Put(t, "box", "dir/hello.txt", []byte("hello"), "text/plain", "")

		for name, conn := range map[string]string{
			"AccountKey": az.ConnectionString,
			"SAS":        az.SASConnectionString(t, "box"),
		} {
			client, err := azblob.NewClientFromConnectionString(conn, nil)
			if err != nil {
				t.Fatalf("%s: NewClientFromConnectionString: %v", name, err)
			}
			resp, err := client.DownloadStream(t.Context(), "box", "dir/hello.txt", nil)
			if err != nil {
				t.Fatalf("%s: DownloadStream(box, dir/hello.txt) = %v", name, err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(got) != "hello" {
				t.Errorf("%s: body = %q, %v, want %q", name, got, err, "hello")
			}
			if resp.ContentType == nil || *resp.ContentType != "text/plain" {
				t.Errorf("%s: ContentType = %v, want text/plain", name, resp.ContentType)
			}
		}
		if !strings.HasPrefix(az.ConnectionString, "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;") {
			t.Errorf("ConnectionString = %q, want the devstoreaccount1 key form", az.ConnectionString)
		}
	})
	if endpoint == "" {
		return // skipped
	}
	// The subtest's cleanup stopped the service.
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, endpoint+"?comp=list", nil)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	if resp, err := tr.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Errorf("azurite at %s still answers after its test ended", endpoint)
	}
}
