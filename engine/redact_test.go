package engine_test

import (
	"testing"

	"github.com/vaticml/vatic/engine"
)

func TestRedactURL(t *testing.T) {
	f := func(raw, want string) {
		t.Helper()
		if got := engine.RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
	f("https://example.com/data.csv", "https://example.com/data.csv")
	f("https://user:secret@example.com/data.csv", "https://example.com/data.csv")
	f("https://u:p@ss@example.com/a@b.csv", "https://example.com/a@b.csv")
	f("https://acct.blob.core.windows.net/c/b.csv?sv=2020&sig=SECRET", "https://acct.blob.core.windows.net/c/b.csv")
	f("http://h/p#frag", "http://h/p")
	f("http://h/p?", "http://h/p")
	f("http://user@h", "http://h")
	f("http://[::1]:%zz/x?token=1", "http://[::1]:%zz/x") // does not parse: still redacted
	f("", "")
}
