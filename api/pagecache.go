package api

import (
	"container/list"
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// pageCache keeps the rendered answers of GET /data/{name} (pages of rows,
// in any format) so that a page read again, as dashboards do, costs no
// query. An entry is valid for the dataset version it was rendered at
// (engine.DataVersion, which changes after every committed write and
// before the write answers), so a client always reads its own writes.
// It holds at most maxBytes of bodies, least recently used out first; an
// answer larger than maxBytes/64 is never kept, so one export cannot
// flush every page. Safe for concurrent use.
type pageCache struct {
	mu       sync.Mutex
	maxBytes int64
	size     int64
	lru      *list.List // of *pageEntry, most recent first
	entries  map[string]*list.Element
}

type pageEntry struct {
	key     string
	version uint64
	header  http.Header // the headers the handler set
	body    []byte
}

func newPageCache(maxBytes int64) *pageCache {
	if maxBytes <= 0 {
		return nil
	}
	return &pageCache{maxBytes: maxBytes, lru: list.New(), entries: map[string]*list.Element{}}
}

// maxEntry is the largest body the cache keeps.
func (c *pageCache) maxEntry() int64 { return max(c.maxBytes/64, 1) }

// get returns the entry for key rendered at version, if any; an entry of
// another version is dropped.
func (c *pageCache) get(key string, version uint64) *pageEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	en := el.Value.(*pageEntry)
	if en.version != version {
		c.remove(el)
		return nil
	}
	c.lru.MoveToFront(el)
	return en
}

func (c *pageCache) put(en *pageEntry) {
	n := int64(len(en.body))
	if n > c.maxEntry() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[en.key]; ok {
		c.remove(el)
	}
	c.entries[en.key] = c.lru.PushFront(en)
	c.size += n
	for c.size > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

func (c *pageCache) remove(el *list.Element) {
	en := c.lru.Remove(el).(*pageEntry)
	delete(c.entries, en.key)
	c.size -= int64(len(en.body))
}

// pageKey is what the answer of a page request depends on besides the
// dataset's version: the path and query as sent, the base URL the links
// are built on, and the format asked for (acceptedFormat).
func pageKey(r *http.Request) string {
	var b strings.Builder
	b.WriteString(baseURL(r))
	b.WriteByte(' ')
	b.WriteString(r.URL.RequestURI())
	b.WriteByte(' ')
	b.WriteString(acceptedFormat(r).String())
	return b.String()
}

// truncatedKey marks, in a request's context, a flag streamError sets when
// an answer was cut short, so that it is not cached.
type truncatedKey struct{}

func markTruncated(r *http.Request) {
	if f, ok := r.Context().Value(truncatedKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
}

// pageCapture passes an answer through and keeps a copy of it, up to
// limit bytes.
type pageCapture struct {
	http.ResponseWriter
	limit   int64
	status  int
	body    []byte
	over    bool // the body outgrew limit or a write failed
	headers http.Header
}

func (p *pageCapture) WriteHeader(status int) {
	if p.status == 0 {
		p.status = status
		p.headers = p.ResponseWriter.Header().Clone()
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *pageCapture) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.WriteHeader(http.StatusOK)
	}
	n, err := p.ResponseWriter.Write(b)
	if err != nil {
		p.over = true
	}
	if !p.over {
		if int64(len(p.body)+len(b)) > p.limit {
			p.over, p.body = true, nil
		} else {
			p.body = append(p.body, b...)
		}
	}
	return n, err
}

// cachedPage answers a GET of a page of dataset name from the page cache
// when it holds it at the dataset's current version; otherwise it runs
// render and keeps a complete 200 answer.
func (s *Server) cachedPage(w http.ResponseWriter, r *http.Request, name string, render func(http.ResponseWriter, *http.Request) error) error {
	version, ok := s.engine.DataVersion(name)
	if s.pages == nil || !ok || r.Method != http.MethodGet {
		return render(w, r)
	}
	key := pageKey(r)
	if en := s.pages.get(key, version); en != nil {
		h := w.Header()
		for k, v := range en.header {
			if _, set := h[k]; !set {
				h[k] = v
			}
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(en.body)
		return nil
	}
	var truncated atomic.Bool
	r = r.WithContext(context.WithValue(r.Context(), truncatedKey{}, &truncated))
	before := w.Header().Clone()
	pc := &pageCapture{ResponseWriter: w, limit: s.pages.maxEntry()}
	if err := render(pc, r); err != nil {
		return err
	}
	if pc.status != http.StatusOK || pc.over || truncated.Load() {
		return nil
	}
	// Keep only the headers the handler set, not the request's own
	// (its ID, set by the middleware before the handler ran).
	for k := range before {
		if k != "Content-Type" {
			delete(pc.headers, k)
		}
	}
	s.pages.put(&pageEntry{key: key, version: version, header: pc.headers, body: pc.body})
	return nil
}
