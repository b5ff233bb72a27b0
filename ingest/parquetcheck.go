package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// Parquet page types and the PageHeader fields that describe them
// (parquet.thrift).
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3

	fieldPageType       = 1
	fieldCompressedSize = 3
	fieldDataHeader     = 5
	fieldDictHeader     = 7
	fieldDataV2Header   = 8
)

// maxPageHeader is the largest page header read, arrow-go's own limit.
const maxPageHeader = 16 << 20

// checkPages walks the page headers of every column chunk of pf, read
// from r, before arrow-go decodes them: its page reader dereferences the
// header of a page's type without checking that the header is there, so
// a data page without its data page header would panic. Each header must
// parse, carry the header of its type and a compressed size that stays
// within the chunk. The walk reads the headers only (a few bytes each,
// the pages are skipped).
func checkPages(r io.ReaderAt, size int64, pf *file.Reader) error {
	md := pf.MetaData()
	for g := range pf.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			col, err := rg.ColumnChunk(c)
			if err != nil {
				return err
			}
			if col.CryptoMetadata() != nil {
				continue // encrypted: arrow-go refuses it without keys
			}
			start := col.DataPageOffset()
			if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
				start = col.DictionaryPageOffset()
			}
			end := start + col.TotalCompressedSize()
			if start < 0 || end < start || end > size {
				return fmt.Errorf("column chunk %d of row group %d lies outside the file", c, g)
			}
			for pos := start; pos < end; {
				n, err := checkPageHeader(r, pos, end)
				if err != nil {
					return fmt.Errorf("column chunk %d of row group %d, page at byte %d: %w", c, g, pos, err)
				}
				pos += n
			}
		}
	}
	return nil
}

// checkPageHeader checks the page header at pos and returns the length of
// the page, header included, which must end by end.
func checkPageHeader(r io.ReaderAt, pos, end int64) (int64, error) {
	for want := int64(4 << 10); ; want *= 2 {
		n := min(want, end-pos, maxPageHeader)
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, pos); err != nil {
			return 0, err
		}
		mb := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(buf)}
		typ, compressed, hasHeader, err := readPageHeader(thrift.NewTCompactProtocolConf(mb, &thrift.TConfiguration{}))
		if err != nil {
			if n == want && n < maxPageHeader && n < end-pos {
				continue // the header may be longer than what was read
			}
			return 0, fmt.Errorf("invalid page header: %w", err)
		}
		if !hasHeader[typ] {
			return 0, fmt.Errorf("page of type %d without its header", typ)
		}
		total := n - int64(mb.Len()) + int64(compressed)
		if compressed < 0 || pos+total > end {
			return 0, errors.New("page size out of range")
		}
		return total, nil
	}
}

// readPageHeader reads a PageHeader struct: its type, compressed size, and
// which of the per-type headers it has.
func readPageHeader(p thrift.TProtocol) (typ int32, compressed int32, has map[int32]bool, err error) {
	ctx := context.Background()
	has = map[int32]bool{pageData: false, pageDictionary: false, pageDataV2: false}
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return 0, 0, nil, err
	}
	typ = -1
	for {
		_, ft, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return 0, 0, nil, err
		}
		if ft == thrift.STOP {
			break
		}
		switch {
		case id == fieldPageType && ft == thrift.I32:
			typ, err = p.ReadI32(ctx)
		case id == fieldCompressedSize && ft == thrift.I32:
			compressed, err = p.ReadI32(ctx)
		default:
			switch id {
			case fieldDataHeader:
				has[pageData] = ft == thrift.STRUCT
			case fieldDictHeader:
				has[pageDictionary] = ft == thrift.STRUCT
			case fieldDataV2Header:
				has[pageDataV2] = ft == thrift.STRUCT
			}
			err = thrift.SkipDefaultDepth(ctx, p, ft)
		}
		if err != nil {
			return 0, 0, nil, err
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return 0, 0, nil, err
		}
	}
	if err := p.ReadStructEnd(ctx); err != nil {
		return 0, 0, nil, err
	}
	if _, known := has[typ]; !known {
		// Index pages and unknown types are skipped by arrow-go.
		has[typ] = true
	}
	return typ, compressed, has, nil
}

// checkFooter checks the schema in the footer of the Parquet file in r
// (size bytes) before arrow-go builds it: arrow-go makes a group's slice of
// children at the count the file claims, and panics on a logical type
// that names no type it knows or a time or timestamp without a unit. A
// footer it cannot find, or an encrypted one, is left to arrow-go, which
// refuses it.
func checkFooter(r io.ReaderAt, size int64) error {
	var tail [8]byte
	if size < 12 {
		return nil
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if !bytes.Equal(tail[4:], parquetMagic) || n > size-12 {
		return nil
	}
	meta := make([]byte, n)
	if _, err := r.ReadAt(meta, size-8-n); err != nil {
		return err
	}
	p := thrift.NewTCompactProtocolConf(&thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(meta)}, &thrift.TConfiguration{})
	return walkStruct(p, func(id int16, ft thrift.TType) (bool, error) {
		if id != 2 || ft != thrift.LIST { // FileMetaData.schema
			return false, nil
		}
		et, count, err := p.ReadListBegin(context.Background())
		if err != nil {
			return true, err
		}
		if et != thrift.STRUCT {
			return true, errors.New("schema elements are not structs")
		}
		for range count {
			if err := checkSchemaElement(p, count); err != nil {
				return true, err
			}
		}
		return true, p.ReadListEnd(context.Background())
	})
}

// checkSchemaElement checks one SchemaElement of a schema of total
// elements: its number of children and its logical type.
func checkSchemaElement(p thrift.TProtocol, total int) error {
	return walkStruct(p, func(id int16, ft thrift.TType) (bool, error) {
		switch {
		case id == 5 && ft == thrift.I32: // num_children
			n, err := p.ReadI32(context.Background())
			if err == nil && (n < 0 || int(n) >= total) {
				err = fmt.Errorf("a schema element claims %d children of %d elements", n, total)
			}
			return true, err
		case id == 10 && ft == thrift.STRUCT: // logicalType
			return true, checkLogicalType(p)
		}
		return false, nil
	})
}

// checkLogicalType checks that a LogicalType union sets a type arrow-go
// knows (parquet.thrift: 1–8, 10–18), and a unit for TIME (7) and
// TIMESTAMP (8).
func checkLogicalType(p thrift.TProtocol) error {
	set := false
	err := walkStruct(p, func(id int16, ft thrift.TType) (bool, error) {
		if ft != thrift.STRUCT || id < 1 || id > 18 || id == 9 {
			return false, nil
		}
		set = true
		if id != 7 && id != 8 {
			return false, nil
		}
		unit := false
		err := walkStruct(p, func(id int16, ft thrift.TType) (bool, error) {
			if id != 2 || ft != thrift.STRUCT { // TimeType/TimestampType.unit
				return false, nil
			}
			return true, walkStruct(p, func(id int16, ft thrift.TType) (bool, error) {
				unit = unit || (ft == thrift.STRUCT && id >= 1 && id <= 3) // MILLIS, MICROS, NANOS
				return false, nil
			})
		})
		if err == nil && !unit {
			err = errors.New("a time or timestamp logical type without its unit")
		}
		return true, err
	})
	if err == nil && !set {
		err = errors.New("a logical type that names no known type")
	}
	return err
}

// walkStruct reads a struct field by field: visit reads the value of the
// fields it wants and reports whether it did; the others are skipped.
func walkStruct(p thrift.TProtocol, visit func(id int16, ft thrift.TType) (bool, error)) error {
	ctx := context.Background()
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return err
	}
	for {
		_, ft, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return err
		}
		if ft == thrift.STOP {
			break
		}
		read, err := visit(id, ft)
		if err == nil && !read {
			err = thrift.SkipDefaultDepth(ctx, p, ft)
		}
		if err == nil {
			err = p.ReadFieldEnd(ctx)
		}
		if err != nil {
			return err
		}
	}
	return p.ReadStructEnd(ctx)
}
