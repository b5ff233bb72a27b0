package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vaticml/vatic/remote"
	"github.com/vaticml/vatic/remote/remotetest"
)

// S3 imports through the router against an S3-protocol server on
// loopback (gofakes3, in process).
func TestImportS3(t *testing.T) {
	store := remotetest.NewS3(t)
	store.CreateBucket(t, "sample-data")
	csv := "day,sales\n2017-01-01,10\n2017-01-02,20\n"
	store.Put(t, "sample-data", "folder/Location B.csv", []byte(csv), "text/csv")
	store.Put(t, "sample-data", "gz/sales.csv.gz", gz(t, csv), "application/gzip")
	store.Put(t, "sample-data", "rows.json", []byte(`{"data":[{"day":"2017-01-03","sales":"30"}]}`), "application/json")
	s := newServer(t, withRemote(remote.Options{S3Endpoint: store.Endpoint}))

	for _, c := range []struct {
		kind, path string
		rows       int64
	}{
		{"s3", "folder/Location B.csv", 2},
		{"S3", "gz/sales.csv.gz", 2},
		{"objectstore", "rows.json", 3},
	} {
		t.Run(c.path, func(t *testing.T) {
			imp := postImport(t, s, c.kind, map[string]any{"dataSetName": "location-b", "bucket": "sample-data", "path": c.path,
				"accessKeyId": store.AccessKey, "secretAccessKey": store.SecretKey})
			if imp.Type != "objectstore" || imp.Parameters["bucket"] != "sample-data" || imp.Parameters["path"] != c.path ||
				imp.Parameters["region"] != nil {
				t.Errorf("POST /imports/%s = %+v", c.kind, imp)
			}
			if strings.Contains(fmt.Sprint(imp), store.SecretKey) {
				t.Errorf("the import shows the secret key")
			}
			done := waitImport(t, s, imp.ImportID)
			if done.Status != "completed" {
				t.Fatalf("import = %+v", done)
			}
			if d := s.get(t, "location-b", ""); d.RowCount != c.rows {
				t.Errorf("rows after importing %s = %d, want %d", c.path, d.RowCount, c.rows)
			}
		})
	}
	t.Run("region is shown when given", func(t *testing.T) {
		imp := postImport(t, s, "s3", map[string]any{"dataSetName": "r", "bucket": "sample-data", "path": "rows.json", "region": "eu-west-1"})
		if imp.Parameters["region"] != "eu-west-1" {
			t.Errorf("parameters = %v", imp.Parameters)
		}
		waitImport(t, s, imp.ImportID)
	})
	for _, c := range []struct{ name, bucket, path, want string }{
		{"missing key", "sample-data", "nope.csv", "404"},
		{"missing bucket", "no-such-bucket", "x.csv", "404"},
	} {
		t.Run(c.name, func(t *testing.T) {
			imp := postImport(t, s, "s3", map[string]any{"dataSetName": "location-b", "bucket": c.bucket, "path": c.path})
			done := waitImport(t, s, imp.ImportID)
			if done.Status != "failed" || !strings.Contains(done.Messages[len(done.Messages)-1].Message, c.want) {
				t.Errorf("import = %+v, want failed mentioning %s", done, c.want)
			}
		})
	}
	t.Run("access denied", func(t *testing.T) {
		store.RequireAuth(true)
		defer store.RequireAuth(false)
		imp := postImport(t, s, "s3", map[string]any{"dataSetName": "location-b", "bucket": "sample-data", "path": "rows.json",
			"accessKeyId": "WRONGKEY", "secretAccessKey": "wrong"})
		done := waitImport(t, s, imp.ImportID)
		if done.Status != "failed" || !strings.Contains(done.Messages[len(done.Messages)-1].Message, "403") {
			t.Errorf("import with a wrong key = %+v, want failed with 403", done)
		}
	})
}

// Azure imports through the router against Azurite on loopback.
func TestImportAzure(t *testing.T) {
	az := remotetest.StartAzurite(t)
	az.CreateContainer(t, "datatest")
	az.Put(t, "datatest", "mpg/auto-mpg.csv", []byte("mpg,cylinders\n18,8\n15,8\n"), "text/csv", "")
	az.Put(t, "datatest", "mpg/auto-mpg.data.json", []byte(`[{"mpg":"36","cylinders":"4"}]`), "application/json", "")
	az.Put(t, "datatest", "more.csv.gz", gz(t, "mpg,cylinders\n24,4\n"), "application/gzip", "")
	az.Put(t, "datatest", "encoded", gz(t, "mpg,cylinders\n25,4\n"), "text/csv", "gzip")
	s := newServer(t)
	for _, c := range []struct {
		name, kind, conn, blob string
		rows                   int64
	}{
		{"account key", "azure", az.ConnectionString, "mpg/auto-mpg.csv", 2},
		{"shared access signature", "BlobStore", az.SASConnectionString(t, "datatest"), "mpg/auto-mpg.data.json", 3},
		{"gzip file", "azure", az.ConnectionString, "more.csv.gz", 4},
		{"gzip content encoding", "azure", az.ConnectionString, "encoded", 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			imp := postImport(t, s, c.kind, map[string]any{"dataSetName": "auto-mpg", "connectionString": c.conn,
				"container": "datatest", "blob": c.blob})
			if imp.Type != "blobstore" || imp.Parameters["connectionString"] != "redacted" || imp.Parameters["blob"] != c.blob {
				t.Errorf("POST /imports/%s = %+v", c.kind, imp)
			}
			done := waitImport(t, s, imp.ImportID)
			if done.Status != "completed" {
				t.Fatalf("import = %+v", done)
			}
			if d := s.get(t, "auto-mpg", ""); d.RowCount != c.rows {
				t.Errorf("rows = %d, want %d", d.RowCount, c.rows)
			}
		})
	}
	for _, c := range []struct{ name, conn, blob, want string }{
		{"missing blob", az.ConnectionString, "mpg/none.csv", "404"},
		{"bad connection string", "nonsense", "mpg/auto-mpg.csv", "connection string"},
		{"wrong key", strings.Replace(az.ConnectionString, remotetest.AzuriteKey, "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXk=", 1), "mpg/auto-mpg.csv", "403"},
	} {
		t.Run(c.name, func(t *testing.T) {
			imp := postImport(t, s, "azure", map[string]any{"dataSetName": "auto-mpg", "connectionString": c.conn,
				"container": "datatest", "blob": c.blob})
			done := waitImport(t, s, imp.ImportID)
			if done.Status != "failed" || !strings.Contains(done.Messages[len(done.Messages)-1].Message, c.want) {
				t.Errorf("import = %+v, want failed mentioning %q", done, c.want)
			}
			if strings.Contains(fmt.Sprint(done), remotetest.AzuriteKey) {
				t.Errorf("the import shows the account key")
			}
		})
	}
}
