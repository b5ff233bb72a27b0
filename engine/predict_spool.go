package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// predictSpool keeps a prediction's answer batches until every row has
// been scored: the first ones in memory, up to limit bytes,
// the rest in a temporary file as length-prefixed Arrow IPC streams (one
// per batch: the batches of a JSON body may differ in columns). The file
// is unlinked as soon as it is created where the system allows it, so a
// killed process leaves nothing behind; close removes it otherwise.
type predictSpool struct {
	dir      string
	limit    int // bytes kept in memory
	mem      []arrow.RecordBatch
	memBytes int
	f        *os.File
	w        *bufio.Writer
	r        *bufio.Reader
	onFile   int
	buf      bytes.Buffer
}

// add keeps rec (retaining it, or writing it out).
func (s *predictSpool) add(rec arrow.RecordBatch) error {
	size := recordBytes(rec)
	if s.f == nil && s.memBytes+size <= s.limit {
		rec.Retain()
		s.mem = append(s.mem, rec)
		s.memBytes += size
		return nil
	}
	if s.f == nil {
		f, w, err := openSpoolFile(s.dir, "vatic-predict-*.arrows")
		if err != nil {
			return err
		}
		s.f, s.w = f, w
	}
	s.buf.Reset()
	s.buf.Write(make([]byte, 8))
	w := ipc.NewWriter(&s.buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		return fmt.Errorf("predict spool: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("predict spool: %w", err)
	}
	b := s.buf.Bytes()
	binary.LittleEndian.PutUint64(b, uint64(len(b)-8))
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("predict spool: %w", err)
	}
	s.onFile++
	return nil
}

// read returns batch i (retained for the caller), reading the file
// sequentially: i counts up from 0. It returns io.EOF after the last.
func (s *predictSpool) read(i int) (arrow.RecordBatch, error) {
	if i < len(s.mem) {
		s.mem[i].Retain()
		return s.mem[i], nil
	}
	if i >= len(s.mem)+s.onFile {
		return nil, io.EOF
	}
	if s.r == nil {
		if err := s.w.Flush(); err != nil {
			return nil, fmt.Errorf("predict spool: %w", err)
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("predict spool: %w", err)
		}
		s.r = bufio.NewReaderSize(s.f, 1<<20)
	}
	var n [8]byte
	if _, err := io.ReadFull(s.r, n[:]); err != nil {
		return nil, fmt.Errorf("predict spool: %w", err)
	}
	lr := io.LimitReader(s.r, int64(binary.LittleEndian.Uint64(n[:])))
	rd, err := ipc.NewReader(lr)
	if err != nil {
		return nil, fmt.Errorf("predict spool: %w", err)
	}
	// The reader stops at the batch; the end-of-stream marker is left.
	defer io.Copy(io.Discard, lr)
	defer rd.Release()
	if !rd.Next() {
		return nil, fmt.Errorf("predict spool: batch %d: %v", i, rd.Err())
	}
	rec := rd.RecordBatch()
	rec.Retain()
	return rec, nil
}

// close frees the batches in memory and removes the file.
func (s *predictSpool) close() error {
	for _, r := range s.mem {
		r.Release()
	}
	s.mem = nil
	if s.f == nil {
		return nil
	}
	err := removeSpoolFile(s.f)
	s.f = nil
	return err
}

// openSpoolFile creates a spool's temporary file in dir, unlinked at once
// (kept open: the data lives until removeSpoolFile), with a 1 MiB writer.
func openSpoolFile(dir, pattern string) (*os.File, *bufio.Writer, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, nil, fmt.Errorf("predict spool: %w", err)
	}
	_ = os.Remove(f.Name())
	return f, bufio.NewWriterSize(f, 1<<20), nil
}

// removeSpoolFile closes a spool's temporary file and removes it (it may
// already be unlinked).
func removeSpoolFile(f *os.File) error {
	err := f.Close()
	if rerr := os.Remove(f.Name()); rerr != nil && !os.IsNotExist(rerr) && err == nil {
		err = rerr
	}
	return err
}

// recordBytes is the size of rec's buffers.
func recordBytes(rec arrow.RecordBatch) int {
	n := 0
	for _, c := range rec.Columns() {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				n += b.Len()
			}
		}
	}
	return n
}

// textBatch is one batch of a text answer as PredictText.Rows rendered it.
type textBatch struct {
	data              []byte
	marks, cuts, ends []int
	echoed            int
}

// textBufs recycles the byte buffers of text batches that went to the
// spool file.
var textBufs sync.Pool

// renderText renders an answer batch with t, from lines (the input's
// rows, which the echoed columns are) when t is a LineText.
func renderText(t PredictText, rec arrow.RecordBatch, echoed int, lines *Lines) *textBatch {
	var dst []byte
	if b, ok := textBufs.Get().(*[]byte); ok {
		dst = (*b)[:0]
	}
	n := int(rec.NumRows())
	b := &textBatch{echoed: echoed}
	if lt, ok := t.(LineText); ok && lines != nil {
		b.data, b.marks, b.cuts, b.ends = lt.LineRows(dst, make([]int, 0, n), make([]int, 0, n), make([]int, 0, n), rec, echoed, lines)
		return b
	}
	b.data, b.marks, b.cuts, b.ends = t.Rows(dst, make([]int, 0, n), make([]int, 0, n), make([]int, 0, n), rec, echoed)
	return b
}

// textSpool keeps a text answer's batches until every row has been
// scored, as predictSpool keeps Arrow batches: in memory up to limit
// bytes, then in an unlinked temporary file, each batch as a header (rows,
// echoed columns, data bytes), its marks, cuts and ends, and its data.
type textSpool struct {
	dir      string
	limit    int
	mem      []*textBatch
	memBytes int
	f        *os.File
	w        *bufio.Writer
	onFile   int
	scratch  []byte
}

func (s *textSpool) add(b *textBatch) error {
	if s.f == nil && s.memBytes+len(b.data) <= s.limit {
		s.mem = append(s.mem, b)
		s.memBytes += len(b.data)
		return nil
	}
	if s.f == nil {
		f, w, err := openSpoolFile(s.dir, "vatic-predict-*.rows")
		if err != nil {
			return err
		}
		s.f, s.w = f, w
	}
	h := binary.LittleEndian.AppendUint64(s.scratch[:0], uint64(len(b.ends)))
	h = binary.LittleEndian.AppendUint64(h, uint64(b.echoed))
	h = binary.LittleEndian.AppendUint64(h, uint64(len(b.data)))
	for _, m := range b.marks {
		h = binary.LittleEndian.AppendUint64(h, uint64(m))
	}
	for _, c := range b.cuts {
		h = binary.LittleEndian.AppendUint64(h, uint64(c))
	}
	for _, e := range b.ends {
		h = binary.LittleEndian.AppendUint64(h, uint64(e))
	}
	s.scratch = h
	if _, err := s.w.Write(h); err != nil {
		return fmt.Errorf("predict spool: %w", err)
	}
	if _, err := s.w.Write(b.data); err != nil {
		return fmt.Errorf("predict spool: %w", err)
	}
	textBufs.Put(&b.data)
	s.onFile++
	return nil
}

// replay calls f with every batch in order; a batch is valid during the
// call only.
func (s *textSpool) replay(f func(*textBatch) error) error {
	for _, b := range s.mem {
		if err := f(b); err != nil {
			return err
		}
	}
	if s.f == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("predict spool: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("predict spool: %w", err)
	}
	r := bufio.NewReaderSize(s.f, 1<<20)
	var b textBatch
	var word [8]byte
	u64 := func() (int, error) {
		if _, err := io.ReadFull(r, word[:]); err != nil {
			return 0, fmt.Errorf("predict spool: %w", err)
		}
		return int(binary.LittleEndian.Uint64(word[:])), nil
	}
	for range s.onFile {
		var h [3]int
		for k := range h {
			var err error
			if h[k], err = u64(); err != nil {
				return err
			}
		}
		b.marks, b.cuts, b.ends, b.echoed = b.marks[:0], b.cuts[:0], b.ends[:0], h[1]
		for range h[0] {
			m, err := u64()
			if err != nil {
				return err
			}
			b.marks = append(b.marks, m)
		}
		for range h[0] {
			c, err := u64()
			if err != nil {
				return err
			}
			b.cuts = append(b.cuts, c)
		}
		for range h[0] {
			e, err := u64()
			if err != nil {
				return err
			}
			b.ends = append(b.ends, e)
		}
		b.data = slices.Grow(b.data[:0], h[2])[:h[2]]
		if _, err := io.ReadFull(r, b.data); err != nil {
			return fmt.Errorf("predict spool: %w", err)
		}
		if err := f(&b); err != nil {
			return err
		}
	}
	return nil
}

// close gives the buffers of the batches in memory back to textBufs
// (the answer is written, or abandoned) and removes the file.
func (s *textSpool) close() error {
	for _, b := range s.mem {
		textBufs.Put(&b.data)
	}
	s.mem = nil
	if s.f == nil {
		return nil
	}
	err := removeSpoolFile(s.f)
	s.f = nil
	return err
}
