package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// NewArrowStream returns a Reader of the Arrow IPC stream in r (the
// streaming format, application/vnd.apache.arrow.stream). The schema
// message is read here: a stream that is not one, a column of an
// unsupported type or one whose type does not fit its declared type
// (Options.Declared) is a *ParseError returned at once. Batches are cut
// to at most Options.BatchRows rows and converted to Vatic's types (see
// arrowConv); a batch that is truncated or corrupt is a *ParseError from
// Err. Memory is bounded by one incoming batch, which the sender sizes,
// and never exceeds what the sender actually sent (ipcMessages).
func NewArrowStream(r io.Reader, opts Options) (*Reader, error) {
	opts = opts.withDefaults()
	cr := &countReader{r: r}
	mr := &ipcMessages{r: cr, mem: opts.Allocator, maxColumns: opts.MaxColumns, maxDecoded: opts.MaxDecodedBytes}
	mr.refs.Add(1) // the ipc.Reader's
	ir, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(opts.Allocator))
	if err != nil {
		return nil, cr.fail("Arrow IPC stream", err)
	}
	conv, cols, err := newArrowConv(ir.Schema(), opts)
	if err != nil {
		ir.Release()
		return nil, err
	}
	rd := &Reader{cols: cols, schema: conv.schema}
	var cur arrow.RecordBatch // the incoming batch being cut
	var off int64             // rows of cur emitted
	var counted int64         // input bytes attributed to emitted rows
	rd.next = func() (rec arrow.RecordBatch, err error) {
		// arrow-go's IPC decoding is guarded by the checks above; a panic
		// they miss is a corrupt stream too, as in NewParquet.
		defer decoderPanic(&rec, &err, func(p any) error {
			return &ParseError{Msg: fmt.Sprintf("corrupt Arrow IPC stream: %v", p)}
		})
		for cur == nil || off == cur.NumRows() {
			if cur != nil {
				cur.Release()
				cur = nil
			}
			if !ir.Next() {
				if err := ir.Err(); err != nil {
					return nil, cr.fail("Arrow IPC stream", err)
				}
				return nil, nil
			}
			cur, off = ir.RecordBatch(), 0
			cur.Retain()
			if err := conv.check(cur); err != nil {
				return nil, err
			}
		}
		// Each slice is converted on its own, so that a column that
		// is allocated whole (a null-typed one, which the stream holds
		// no bytes for) costs at most BatchRows rows at a time.
		end := min(off+int64(opts.BatchRows), cur.NumRows())
		src := cur
		if off > 0 || end < cur.NumRows() {
			src = cur.NewSlice(off, end)
			defer src.Release()
		}
		out, err := conv.convert(src, rd.rows)
		if err != nil {
			return nil, err
		}
		off = end
		rd.rows += out.NumRows()
		rd.bytes += cr.n - counted
		counted = cr.n
		return out, nil
	}
	rd.stop = func() {
		if cur != nil {
			cur.Release()
			cur = nil
		}
		ir.Release()
	}
	return rd, nil
}

// ipcMessages reads the messages of an IPC stream. arrow-go's own reader
// allocates a message's metadata and body at the sizes the stream
// declares before reading them, so a few bytes claiming a 256 MiB body
// would cost 256 MiB; this one allocates at most as much as the client
// has sent so far (at least 64 KiB) and grows each buffer as the bytes
// arrive, so memory follows what the client actually sent: at most about
// twice, and a regular stream's buffers are allocated once after its
// first batches. Panics of arrow-go's
// flatbuffer accessors on malformed metadata are caught by the ipc.Reader
// that calls Message; what they would allocate is bounded first
// (checkSchemaMessage).
type ipcMessages struct {
	r          *countReader
	mem        memory.Allocator
	maxColumns int
	maxDecoded int64 // Options.MaxDecodedBytes
	decoded    int64 // what the compressed buffers so far expand to
	cur        *ipc.Message
	refs       atomic.Int64
}

// countDecoded adds what the buffers of a compressed record or dictionary
// batch claim to expand to (the 8-byte length that prefixes each, -1 for a
// buffer stored as is) and fails with ErrTooLarge past maxDecoded: arrow-go
// allocates each buffer at its claimed length before decompressing it, so
// a few bytes could otherwise claim any amount of memory. Malformed
// metadata is left to arrow-go, which reports it.
func (m *ipcMessages) countDecoded(meta, body []byte) error {
	fb := flatBuf(meta)
	msg, ok := fb.offset(0)
	if !ok {
		return nil
	}
	typ, ok := fb.scalar(msg, 1, 1)
	if !ok || (typ != 2 && typ != 3) { // DictionaryBatch, RecordBatch
		return nil
	}
	batch, ok := fb.table(msg, 2)
	if ok && typ == 2 {
		batch, ok = fb.table(batch, 1) // DictionaryBatch.data
	}
	if !ok {
		return nil
	}
	if c, ok := fb.field(batch, 3); !ok || c < 0 { // not compressed
		return nil
	}
	bufs, ok := fb.vector(batch, 2, 16)
	if !ok {
		return nil
	}
	for i := range bufs.n {
		at := bufs.at + 16*i
		off := int64(binary.LittleEndian.Uint64(meta[at:]))
		n := int64(binary.LittleEndian.Uint64(meta[at+8:]))
		if n < 8 || off < 0 || off > int64(len(body))-8 {
			continue
		}
		claim := int64(binary.LittleEndian.Uint64(body[off:]))
		if claim == -1 {
			continue
		}
		if claim < 0 || claim > m.maxDecoded-m.decoded {
			return fmt.Errorf("%w: the compressed buffers of the Arrow IPC stream expand to more than %d bytes", ErrTooLarge, m.maxDecoded)
		}
		m.decoded += claim
	}
	return nil
}

// maxIPCMetadata bounds a message's metadata (a schema of MaxColumns
// fields is far smaller).
const maxIPCMetadata = 64 << 20

func (m *ipcMessages) Message() (*ipc.Message, error) {
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	var hdr [4]byte
	if _, err := io.ReadFull(m.r, hdr[:]); err != nil {
		// A stream may end without its end-of-stream marker.
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n == 0xffffffff {
		if _, err := io.ReadFull(m.r, hdr[:]); err != nil {
			return nil, unexpectedEOF(err)
		}
		n = binary.LittleEndian.Uint32(hdr[:])
	}
	if n == 0 {
		return nil, io.EOF
	}
	if n < 4 || n > maxIPCMetadata {
		return nil, fmt.Errorf("invalid message metadata length %d", n)
	}
	meta, err := readGrowing(m.r, m.mem, int64(n), m.r.n)
	if err != nil {
		return nil, err
	}
	defer meta.Release()
	if err := checkSchemaMessage(meta.Bytes(), m.maxColumns); err != nil {
		return nil, err
	}
	empty := memory.NewResizableBuffer(m.mem)
	defer empty.Release()
	probe := ipc.NewMessage(meta, empty)
	size := probe.BodyLen()
	probe.Release()
	if size < 0 {
		return nil, fmt.Errorf("invalid message body length %d", size)
	}
	body, err := readGrowing(m.r, m.mem, size, m.r.n)
	if err != nil {
		return nil, err
	}
	defer body.Release()
	if err := m.countDecoded(meta.Bytes(), body.Bytes()); err != nil {
		return nil, err
	}
	m.cur = ipc.NewMessage(meta, body)
	return m.cur, nil
}

// readGrowing reads exactly n bytes into a buffer that starts at trust
// bytes (at least 64 KiB) and doubles as they arrive.
func readGrowing(r io.Reader, mem memory.Allocator, n, trust int64) (*memory.Buffer, error) {
	buf := memory.NewResizableBuffer(mem)
	have := int64(0)
	for have < n {
		next := min(n, max(2*have, trust, 64<<10))
		buf.Resize(int(next))
		if _, err := io.ReadFull(r, buf.Bytes()[have:next]); err != nil {
			buf.Release()
			return nil, unexpectedEOF(err)
		}
		have = next
	}
	buf.Resize(int(n))
	return buf, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (m *ipcMessages) Retain() { m.refs.Add(1) }

func (m *ipcMessages) Release() {
	if m.refs.Add(-1) == 0 && m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
}

// countReader counts the bytes read through it and keeps the first error
// of the underlying reader other than io.EOF, so that a failure of the
// source (the body's size cap, a broken connection) is told apart from a
// malformed stream that arrow-go reports in its own words.
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// fail turns an error met while decoding into the Reader's error: the
// source's own error when it failed, else a *ParseError.
func (c *countReader) fail(what string, err error) error {
	var pe *ParseError
	switch {
	case c.err != nil:
		return readError(c.err)
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, ErrTooLarge):
		return err
	}
	return &ParseError{Msg: fmt.Sprintf("not a valid %s: %v", what, err)}
}

// parquetSpoolPattern names the temporary files that hold Parquet bodies
// (os.CreateTemp's pattern); RemoveSpools knows it.
const parquetSpoolPattern = "vatic-ingest-*.parquet"

// NewParquet returns a Reader of the Parquet file in r. A Parquet file is
// read from its footer, so r is first copied to a temporary file in
// Options.SpoolDir (removed by Release; the caller caps r's size); the
// file is then read one row group at a time, in batches of at most
// Options.BatchRows rows, so memory is bounded by a batch of one row
// group, not by the file. A file that is not Parquet, a column of an
// unsupported type (nested, binary, …) or one whose type does not fit its
// declared type is a *ParseError returned here; corrupt pages are a
// *ParseError from Err. Bytes counts the compressed size of the row
// groups read.
func NewParquet(r io.Reader, opts Options) (*Reader, error) {
	opts = opts.withDefaults()
	f, err := os.CreateTemp(opts.SpoolDir, parquetSpoolPattern)
	if err != nil {
		return nil, fmt.Errorf("ingest: spool Parquet: %w", err)
	}
	remove := func() {
		f.Close()
		os.Remove(f.Name())
	}
	w := bufio.NewWriterSize(f, 256<<10)
	size, err := io.Copy(w, r)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		remove()
		var werr *os.PathError
		if errors.As(err, &werr) {
			return nil, fmt.Errorf("ingest: spool Parquet: %w", err)
		}
		return nil, readError(err)
	}
	if err := checkFooter(f, size); err != nil {
		remove()
		return nil, &ParseError{Msg: "corrupt Parquet schema: " + err.Error()}
	}
	pf, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(opts.Allocator)))
	if err != nil {
		remove()
		return nil, &ParseError{Msg: "not a valid Parquet file: " + err.Error()}
	}
	if err := checkStoredSchema(pf.MetaData().KeyValueMetadata(), opts.MaxColumns); err != nil {
		remove()
		return nil, &ParseError{Msg: "invalid Arrow schema stored in the Parquet file: " + err.Error()}
	}
	if err := checkPages(f, size, pf); err != nil {
		remove()
		return nil, &ParseError{Msg: "corrupt Parquet file: " + err.Error()}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(opts.BatchRows)}, opts.Allocator)
	var schema *arrow.Schema
	if err == nil {
		schema, err = fr.Schema()
	}
	if err != nil {
		remove()
		return nil, &ParseError{Msg: "unsupported Parquet schema: " + err.Error()}
	}
	conv, cols, err := newArrowConv(schema, opts)
	if err != nil {
		remove()
		return nil, err
	}
	rd := &Reader{cols: cols, schema: conv.schema}
	var rr pqarrow.RecordReader
	group := 0
	corrupt := func(err error) error {
		return &ParseError{Msg: fmt.Sprintf("corrupt Parquet row group %d: %v", group, err)}
	}
	rd.next = func() (rec arrow.RecordBatch, err error) {
		// arrow-go's page decoders panic on some pages the checks above
		// let through (an encoding not implemented for the column's type,
		// DELTA_BYTE_ARRAY on a float column, say: FuzzParquet's corpus).
		// The panic happens in this goroutine (the reads are not parallel)
		// and leaves nothing shared behind but the row group reader, which
		// stop releases: the body is corrupt, a *ParseError like the rest.
		defer decoderPanic(&rec, &err, func(p any) error { return corrupt(fmt.Errorf("%v", p)) })
		for {
			if rr == nil {
				if group == pf.NumRowGroups() {
					return nil, nil
				}
				// A row group's rows count for its compressed bytes as it
				// starts: Bytes then matches the file once all are read.
				rd.bytes += pf.MetaData().RowGroup(group).TotalCompressedSize()
				if rr, err = fr.GetRecordReader(context.Background(), nil, []int{group}); err != nil {
					rr = nil
					return nil, corrupt(err)
				}
			}
			if rr.Next() {
				rec, err := conv.convert(rr.RecordBatch(), rd.rows)
				if err != nil {
					return nil, err
				}
				rd.rows += rec.NumRows()
				return rec, nil
			}
			if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
				return nil, corrupt(err)
			}
			rr.Release()
			rr = nil
			group++
		}
	}
	rd.stop = func() {
		if rr != nil {
			rr.Release()
			rr = nil
		}
		remove()
	}
	return rd, nil
}

// checkStoredSchema applies checkSchemaMessage to the Arrow schema a
// Parquet writer may store in the file's metadata (pqarrow decodes it with
// arrow-go's IPC reader). A value that does not decode is left to pqarrow,
// which refuses it.
func checkStoredSchema(kv metadata.KeyValueMetadata, maxColumns int) error {
	stored := kv.FindValue("ARROW:schema")
	if stored == nil {
		return nil
	}
	data, err := base64.StdEncoding.DecodeString(*stored)
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(*stored); err != nil {
			return nil
		}
	}
	if bytes.HasPrefix(data, ipcContinuation) {
		data = data[4:]
	}
	if len(data) < 4 {
		return nil
	}
	n := int64(binary.LittleEndian.Uint32(data))
	if n > int64(len(data)-4) {
		return errBadMetadata
	}
	return checkSchemaMessage(data[4:4+n], maxColumns)
}

// checkSchemaMessage bounds what arrow-go allocates to decode a schema
// message: it makes its slices of fields and of key-value metadata at the
// lengths the flatbuffer claims, so a few bytes claiming 2^31 fields would
// cost gigabytes. Every vector length must fit in the bytes that hold it,
// the top-level fields must number at most maxColumns, and all fields
// (children of nested types included, which are refused later) at most
// maxFields. Reads are bounds-checked: malformed input is an error here,
// never an index out of range.
func checkSchemaMessage(meta []byte, maxColumns int) error {
	fb := flatBuf(meta)
	msg, ok := fb.offset(0)
	if !ok {
		return errBadMetadata
	}
	if typ, ok := fb.scalar(msg, 1, 1); !ok || typ != 1 { // header_type Schema
		return nil
	}
	if _, ok := fb.vector(msg, 4, 4); !ok { // custom_metadata
		return errBadMetadata
	}
	schema, ok := fb.field(msg, 2)
	if !ok {
		return errBadMetadata
	}
	if schema < 0 {
		return nil
	}
	if schema, ok = fb.offset(schema); !ok {
		return errBadMetadata
	}
	if _, ok := fb.vector(schema, 2, 4); !ok { // custom_metadata
		return errBadMetadata
	}
	if _, ok := fb.vector(schema, 3, 8); !ok { // features
		return errBadMetadata
	}
	fields, ok := fb.vector(schema, 1, 4)
	if !ok {
		return errBadMetadata
	}
	if fields.n > maxColumns {
		return &ParseError{Msg: tooManyColumns(maxColumns)}
	}
	budget := maxFields(maxColumns)
	return fb.checkFields(fields, &budget, 0)
}

// maxFields bounds the fields of a schema, children included: room for
// every column to be a small struct, which is then refused by name.
func maxFields(maxColumns int) int { return 4*maxColumns + 64 }

// maxFieldDepth bounds the nesting of fields.
const maxFieldDepth = 32

var errBadMetadata = errors.New("malformed message metadata")

func (fb flatBuf) checkFields(v fbVector, budget *int, depth int) error {
	if depth > maxFieldDepth {
		return &ParseError{Msg: "the schema nests too deeply"}
	}
	for i := range v.n {
		*budget--
		if *budget < 0 {
			return &ParseError{Msg: "the schema has too many fields"}
		}
		f, ok := fb.offset(v.at + 4*i)
		if !ok {
			return errBadMetadata
		}
		if _, ok := fb.vector(f, 6, 4); !ok { // custom_metadata
			return errBadMetadata
		}
		children, ok := fb.vector(f, 5, 4)
		if !ok {
			return errBadMetadata
		}
		if err := fb.checkFields(children, budget, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// flatBuf reads a flatbuffer with every access bounds-checked.
type flatBuf []byte

// fbVector is a vector's first element and length.
type fbVector struct{ at, n int }

func (fb flatBuf) u32(at int) (uint32, bool) {
	if at < 0 || at+4 > len(fb) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(fb[at:]), true
}

func (fb flatBuf) u16(at int) (int, bool) {
	if at < 0 || at+2 > len(fb) {
		return 0, false
	}
	return int(binary.LittleEndian.Uint16(fb[at:])), true
}

// offset follows the offset stored at at.
func (fb flatBuf) offset(at int) (int, bool) {
	u, ok := fb.u32(at)
	if !ok || int64(at)+int64(u) >= int64(len(fb)) {
		return 0, false
	}
	return at + int(u), true
}

// field returns the position of field i of the table at t, -1 when the
// field is absent.
func (fb flatBuf) field(t, i int) (int, bool) {
	soff, ok := fb.u32(t)
	if !ok {
		return 0, false
	}
	vt := int64(t) - int64(int32(soff))
	if vt < 0 || vt >= int64(len(fb)) {
		return 0, false
	}
	size, ok := fb.u16(int(vt))
	if !ok {
		return 0, false
	}
	if 4+2*i >= size {
		return -1, true
	}
	fo, ok := fb.u16(int(vt) + 4 + 2*i)
	if !ok {
		return 0, false
	}
	if fo == 0 {
		return -1, true
	}
	return t + fo, true
}

// table follows field i of the table at t to the table it refers to;
// false when absent or malformed.
func (fb flatBuf) table(t, i int) (int, bool) {
	at, ok := fb.field(t, i)
	if !ok || at < 0 {
		return 0, false
	}
	return fb.offset(at)
}

// scalar reads a field of size bytes (1 or 4) of the table at t; 0 when
// absent.
func (fb flatBuf) scalar(t, i, size int) (uint32, bool) {
	at, ok := fb.field(t, i)
	if !ok || at < 0 {
		return 0, ok
	}
	if at+size > len(fb) {
		return 0, false
	}
	if size == 1 {
		return uint32(fb[at]), true
	}
	return fb.u32(at)
}

// vector returns field i of the table at t as a vector of elements of
// elem bytes, checking that they fit; an absent field is an empty vector.
func (fb flatBuf) vector(t, i, elem int) (fbVector, bool) {
	at, ok := fb.field(t, i)
	if !ok || at < 0 {
		return fbVector{}, ok
	}
	v, ok := fb.offset(at)
	if !ok {
		return fbVector{}, false
	}
	n, ok := fb.u32(v)
	if !ok || int64(n)*int64(elem) > int64(len(fb)-v-4) {
		return fbVector{}, false
	}
	return fbVector{at: v + 4, n: int(n)}, true
}

// decoderPanic, deferred by a columnar reader's next, turns a panic of
// arrow-go's decoders into the error asPanic makes of it. Reader.Next is
// called wherever the batches are consumed, DuckDB's Arrow scan among
// them (through cgo, where no caller's recover reaches), so the reader is
// the one place a decoder's panic can be caught. Only the readers of
// formats whose decoding is arrow-go's defer it: a panic in our own CSV
// and JSON code is a bug to report, not a bad body.
func decoderPanic(rec *arrow.RecordBatch, err *error, asPanic func(p any) error) {
	if p := recover(); p != nil {
		*rec, *err = nil, asPanic(p)
	}
}
