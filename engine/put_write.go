package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/ingest"
)

// apply runs inside the transaction: settles the table's declared
// columns, writes the rows (writeRows), settles the column types the rows
// showed (noteReadTypes) and saves the catalog entry (save).
func (p *putPlan) apply(ctx context.Context, rd *ingest.Reader) error {
	table, err := sqlgen.Table(p.old.Name)
	if err != nil {
		return Validation("dataSetName", "Value for dataSetName is not a valid name")
	}
	if err := p.settleDeclaredColumns(ctx, table); err != nil {
		return err
	}
	match := ""
	if p.old.RowCount > 0 {
		if match = columnWithRole(p.cols, columnar.RoleKey); match == "" {
			match = columnWithRole(p.cols, columnar.RoleTimestamp)
		}
	}
	if match != "" {
		// The staging table lives in schema main and is dropped before the
		// transaction ends, so no other connection ever sees it.
		p.stageName = stagePrefix + randomID()
		p.stage = "main." + columnar.MustQuoteIdent(p.stageName)
		defer func() { _, _ = p.e.store.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+p.stage) }()
	}
	hasTable, err := p.writeRows(ctx, rd, table, match)
	if err != nil {
		return err
	}
	p.noteReadTypes(rd.Columns())
	if err := p.validate(); err != nil {
		return err
	}
	return p.save(ctx, len(p.tableCols) > 0 || hasTable, rd.Bytes())
}

// writeRows streams rd's rows into the data table, segment by segment
// (creating or widening the table as the schema changes). When match names
// the column that identifies a row (an upsert), the rows go to the staging
// table first and then replace the matching rows (mergeStage). It reports
// whether the data table existed before the rows or was created for them
// (a table that mergeStage creates shows in p.tableCols instead).
func (p *putPlan) writeRows(ctx context.Context, rd *ingest.Reader, table, match string) (hasTable bool, err error) {
	e := p.e
	target := table
	if match != "" {
		target = p.stage
	}
	created := map[string]bool{table: len(p.tableCols) > 0}
	var rows int64
	seg := ingest.FirstSegment(rd)
	defer func() { seg.Discard() }()
	for ; seg != nil; seg = seg.NextSegment() {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		schema := seg.Schema()
		if err := p.checkWidth(schema); err != nil {
			return false, err
		}
		if !created[target] {
			if err := e.store.CreateTable(ctx, target, schema); err != nil {
				return false, fmt.Errorf("create %s: %w", target, err)
			}
			created[target] = true
			if target == table {
				p.noteTable(schema)
			}
		} else if err := p.ensureColumns(ctx, target, schema); err != nil {
			return false, err
		}
		n, err := e.store.Append(ctx, target, seg)
		rows += n
		if err != nil {
			if perr := rd.Err(); perr != nil {
				return false, perr
			}
			return false, fmt.Errorf("append to %s: %w", target, err)
		}
	}
	if err := rd.Err(); err != nil {
		return false, err
	}
	if p.stage != "" && rows > 0 {
		if err := p.mergeStage(ctx, rd.Schema(), table, match, created[table]); err != nil {
			return false, err
		}
	}
	return created[table], nil
}

// mergeStage moves the staged rows into the data table (creating it, or
// adding the columns it lacks, from schema): rows whose match value is
// staged are deleted, then every staged row is inserted.
func (p *putPlan) mergeStage(ctx context.Context, schema *arrow.Schema, table, match string, tableExists bool) error {
	e := p.e
	if !tableExists {
		if err := e.store.CreateTable(ctx, table, schema); err != nil {
			return err
		}
		p.noteTable(schema)
	} else if err := p.ensureColumns(ctx, table, schema); err != nil {
		return err
	}
	del, err := sqlgen.ReplaceMatching(p.old.Name, p.stage, match)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, del); err != nil {
		return fmt.Errorf("replace rows of %s: %w", table, err)
	}
	ins, err := sqlgen.InsertFrom(p.old.Name, p.stage)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, ins); err != nil {
		return fmt.Errorf("insert rows into %s: %w", table, err)
	}
	return nil
}

// save completes the catalog entry (metadata, times, row count, size),
// checks the DataSetSize allotment, infers the roles of a dataset's first
// rows and writes the entry. hasTable says whether the data table exists;
// added is the bytes of row text this write read.
func (p *putPlan) save(ctx context.Context, hasTable bool, added int64) error {
	e := p.e
	d := p.old
	d.Columns = p.cols
	d.MissingValues = p.missing
	now := e.now()
	if !p.exists {
		d.Created = now
	}
	d.Modified = now
	if hasTable {
		q, args, err := sqlgen.Count(d.Name, sqlgen.Range{})
		if err != nil {
			return err
		}
		r, err := e.store.Rows(ctx, q, args...)
		if err != nil {
			return err
		}
		if err := scanOne(r, &d.RowCount); err != nil {
			return err
		}
	}
	d.Size += added
	if err := e.checkDataSetSize(ctx, d, added); err != nil {
		return err
	}
	if p.old.RowCount == 0 && d.RowCount > 0 {
		if err := p.inferRoles(ctx, &d); err != nil {
			return err
		}
	}
	p.d = d
	return e.saveDataset(ctx, d)
}

// noteTable records the columns of a table just created.
func (p *putPlan) noteTable(schema *arrow.Schema) {
	if p.tableCols == nil {
		p.tableCols = map[string]tableColumn{}
	}
	for _, f := range schema.Fields() {
		p.tableCols[strings.ToLower(f.Name)] = tableColumn{Name: f.Name, Type: columnar.FieldDataType(f).Storage()}
	}
}

// settleDeclaredColumns gives the data table the columns whose type the
// caller declared: it creates the table for a new dataset that has typed
// columns, adds missing columns, and converts columns whose declared
// storage differs from the stored one (failing if a value cannot convert).
func (p *putPlan) settleDeclaredColumns(ctx context.Context, table string) error {
	var fields []arrow.Field
	for _, c := range p.cols {
		if c.DataType != "" {
			fields = append(fields, columnar.Field(c.Name, c.DataType))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	schema := arrow.NewSchema(fields, nil)
	if len(p.tableCols) == 0 {
		if err := p.e.store.CreateTable(ctx, table, schema); err != nil {
			return fmt.Errorf("create %s: %w", table, err)
		}
		p.noteTable(schema)
		return nil
	}
	return p.ensureColumns(ctx, table, schema)
}

// ensureColumns adds the fields of schema missing from table and converts
// columns whose storage differs. For the data table it keeps tableCols
// current.
func (p *putPlan) ensureColumns(ctx context.Context, table string, schema *arrow.Schema) error {
	isData := table != p.stage
	for _, f := range schema.Fields() {
		want := columnar.FieldDataType(f)
		key := strings.ToLower(f.Name)
		var have tableColumn
		var ok bool
		if isData {
			have, ok = p.tableCols[key]
		} else {
			have, ok = p.stageColumn(ctx, f.Name)
		}
		var q string
		var err error
		switch {
		case !ok:
			q, err = sqlgen.AddColumn(table, f.Name, want)
		case have.Type != want.Storage():
			q, err = sqlgen.ConvertColumn(table, have.Name, have.Type, want)
		default:
			continue
		}
		if err != nil {
			return err
		}
		if _, err := p.e.store.Exec(ctx, q); err != nil {
			if ok {
				return MetadataError(map[string][]string{have.Name: {fmt.Sprintf("The values of column %s cannot be read as %s", have.Name, want)}})
			}
			return fmt.Errorf("alter %s: %w", table, err)
		}
		if isData {
			name := f.Name
			if ok {
				name = have.Name
			}
			p.tableCols[key] = tableColumn{Name: name, Type: want.Storage()}
		}
	}
	return nil
}

// stageColumn looks a column up in the staging table.
func (p *putPlan) stageColumn(ctx context.Context, name string) (tableColumn, bool) {
	cols, err := p.e.stageColumns(ctx, p.stageName)
	if err != nil {
		return tableColumn{}, false
	}
	c, ok := cols[strings.ToLower(name)]
	return c, ok
}

// checkDataSetSize refuses a write that takes the account's datasets past
// the DataSetSize allotment (429 QuotaExceeded, in the words of the
// dataset-count quota). It runs inside the write's transaction, after the
// rows are in, so it measures the bytes actually added (d.Size, as the
// dataset summary reports it) rather than trusting a Content-Length that
// gzip, JSON syntax or upserts make approximate; refusing rolls the whole
// write back. The cost is that a refused body is read in full first; the
// body limits bound it. A write that adds no bytes (metadata only) always
// passes, even when a lowered allotment is already exceeded. Two writes to
// different datasets committing at once may each pass alone and exceed it
// together by at most one write.
func (e *Engine) checkDataSetSize(ctx context.Context, d Dataset, added int64) error {
	limit := e.opts.Allotments.DataSetSize
	if added <= 0 || limit == unlimited {
		return nil
	}
	others, err := e.datasetBytes(ctx, d.Name)
	if err != nil {
		return err
	}
	if others+d.Size <= limit {
		return nil
	}
	current := others + d.Size - added // in use before this write
	left := max(limit-current, 0)
	return &Error{Kind: QuotaExceeded,
		Msg:     fmt.Sprintf("You have %d bytes of DataSetSize left; this upload needs %d. %d of %d bytes are in use.", left, added, current, limit),
		Details: map[string]any{"dataSetSize": map[string]int64{"allotted": limit, "current": current}}}
}
