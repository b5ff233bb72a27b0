package remote

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzAzureConnectionString: parsing never panics, a parsed string has a
// blob endpoint ending in "/", and an error never repeats a setting's
// value (keys and signatures must not leak into import messages).
func FuzzAzureConnectionString(f *testing.F) {
	for _, seed := range []string{
		"", ";;", "UseDevelopmentStorage=true",
		"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5a2V5a2V5;EndpointSuffix=core.windows.net",
		"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2017-07-29&sig=abcdefgh",
		"BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;AccountName=devstoreaccount1;AccountKey=not base64!",
		"AccountName=a;AccountName=b", "BlobEndpoint=ftp://x/", "=value", "name", "AccountKey=secretsecret;AccountName=",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		conn, err := parseAzureConnectionString(s)
		if err != nil {
			msg := err.Error()
			for part := range strings.SplitSeq(s, ";") {
				_, value, ok := strings.Cut(part, "=")
				// Keys and signatures hold digits or symbols; plain words
				// may well be part of the message's own wording.
				value = strings.TrimSpace(value)
				secretLike := strings.ContainsFunc(value, func(r rune) bool { return !unicode.IsLetter(r) && r != ' ' })
				if ok && secretLike && len(value) >= 8 && strings.Contains(msg, value) {
					t.Fatalf("parseAzureConnectionString(%q) error %q repeats the value %q", s, msg, value)
				}
			}
			return
		}
		if !strings.HasSuffix(conn.serviceURL, "/") || conn.shown == "" {
			t.Fatalf("parseAzureConnectionString(%q) = %+v: endpoint must end in / and be shown", s, conn)
		}
		if conn.key == "" && conn.sas == "" {
			t.Fatalf("parseAzureConnectionString(%q) = %+v without credentials", s, conn)
		}
	})
}
