package engine

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/ingest"
)

// column returns the merged metadata entry for name, adding it if absent.
func (p *putPlan) column(name string) *columnar.Column {
	if i := columnIndex(p.cols, name); i >= 0 {
		return &p.cols[i]
	}
	p.cols = append(p.cols, columnar.Column{Name: name})
	return &p.cols[len(p.cols)-1]
}

func (p *putPlan) markDeclared(name string) {
	if p.declared == nil {
		p.declared = map[string]bool{}
	}
	p.declared[strings.ToLower(name)] = true
}

// applyTimestampParam applies ?timestampColumn= of a CSV upload.
func (p *putPlan) applyTimestampParam() error {
	name := strings.TrimSpace(p.req.TimestampColumn)
	if name == "" {
		return nil
	}
	if err := validColumnName(name); err != nil {
		return Validation("timestampColumn", "Value for timestampColumn must be a column name")
	}
	for i := range p.cols {
		if p.cols[i].Role == columnar.RoleTimestamp && !strings.EqualFold(p.cols[i].Name, name) {
			p.cols[i].Role = ""
		}
	}
	c := p.column(name)
	if c.DataType != "" && c.DataType != columnar.Date {
		return MetadataError(map[string][]string{c.Name: {"Timestamp columns must have data type date"}})
	}
	c.DataType, c.Role = columnar.Date, columnar.RoleTimestamp
	p.markDeclared(name)
	return p.validate()
}

// prepareJSON merges the metadata of a JSON body before its rows are read.
func (p *putPlan) prepareJSON(meta ingest.JSONMeta) (ingest.Options, error) {
	if !meta.HasData && !meta.HasColumns && !meta.HasMissingValues {
		return ingest.Options{}, &Error{Kind: NoData, Msg: "No data was sent", Details: map[string]any{"dataSetName": p.req.Name}}
	}
	if meta.HasMissingValues {
		p.missing = meta.MissingValues
	}
	if err := p.mergeSpecs(meta.Columns); err != nil {
		return ingest.Options{}, err
	}
	return p.ingestOptions(), nil
}

// mergeSpecs applies supplied column metadata and validates the result.
func (p *putPlan) mergeSpecs(specs []columnar.Spec) error {
	if len(specs) == 0 {
		return nil
	}
	reasons := map[string][]string{}
	for _, s := range specs {
		if err := validColumnName(s.Name); err != nil {
			reasons[shownName(s.Name)] = append(reasons[shownName(s.Name)], badColumnNameReason)
			continue
		}
		if msgs := p.mergeSpec(s); len(msgs) > 0 {
			reasons[s.Name] = append(reasons[s.Name], msgs...)
		}
		if len(p.cols) > p.e.opts.MaxColumns {
			return p.tooWide()
		}
	}
	if len(reasons) > 0 {
		return MetadataError(reasons)
	}
	return p.validate()
}

// mergeSpec applies one column's supplied metadata and returns the reasons
// it is invalid, if any. Metadata sent for a column replaces that column's
// (REFERENCE §2.1, §3.2): its imputation and aggregation become what the
// spec says, absent ones unset so that the defaults of the (possibly new)
// data type show — the Python client changes a numeric column with
// mode/median to numericMeasure and expects mean/mean. A given dataType
// replaces the column's type; an absent one keeps the stored or inferred
// type. Role is the exception, kept when the spec omits it: a role is
// structural (one key, one timestamp, one target, and the key is fixed
// once rows exist), so a spec that only retypes a column or picks its
// strategies must not silently turn a time series into a plain dataset or
// drop its target; an explicit "none" removes the role. Columns no spec
// names keep all their metadata.
func (p *putPlan) mergeSpec(s columnar.Spec) []string {
	var msgs []string
	c := p.column(s.Name)
	stored, inTable := p.tableCols[strings.ToLower(s.Name)]
	if s.DataType != "" {
		t, ok := columnar.ParseDataType(s.DataType)
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid dataType", s.DataType))
		case inTable && stored.Type != t.Storage() && (c.Role == columnar.RoleKey || strings.EqualFold(s.Role, "key")):
			msgs = append(msgs, "The data type of the key column cannot be changed")
		default:
			c.DataType = t
			p.markDeclared(s.Name)
		}
	}
	if s.Role != "" {
		r, ok := columnar.ParseRole(s.Role)
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid role", s.Role))
		case r == columnar.RoleKey && c.Role != columnar.RoleKey && p.old.RowCount > 0:
			msgs = append(msgs, "A key column can only be set when the dataset is created")
		case r != columnar.RoleKey && c.Role == columnar.RoleKey && p.old.RowCount > 0:
			msgs = append(msgs, "The key column of a dataset with rows cannot be changed")
		default:
			c.Role = r
		}
	}
	c.Imputation, c.Aggregation = "", ""
	if s.Imputation != "" {
		if v, ok := columnar.ParseImputation(s.Imputation); ok {
			c.Imputation = v
		} else {
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid imputation", s.Imputation))
		}
	}
	if s.Aggregation != "" {
		if v, ok := columnar.ParseAggregation(s.Aggregation); ok {
			c.Aggregation = v
		} else {
			msgs = append(msgs, fmt.Sprintf("Value '%s' is not a valid aggregation", s.Aggregation))
		}
	}
	return msgs
}

// checkWidth refuses data whose columns (schema's fields), with the
// dataset's and the declared ones, would make more than
// Options.MaxColumns.
func (p *putPlan) checkWidth(schema *arrow.Schema) error {
	if schema.NumFields()+len(p.cols) <= p.e.opts.MaxColumns {
		return nil
	}
	known := make(map[string]bool, len(p.cols))
	for _, c := range p.cols {
		known[strings.ToLower(c.Name)] = true
	}
	n := len(p.cols)
	for _, f := range schema.Fields() {
		if !known[strings.ToLower(f.Name)] {
			n++
		}
	}
	if n > p.e.opts.MaxColumns {
		return p.tooWide()
	}
	return nil
}

func (p *putPlan) tooWide() error {
	max := p.e.opts.MaxColumns
	reason := fmt.Sprintf("The dataset would have more than %d columns; the column limit is %d", max, max)
	// The reason is in the message too: an import shows only the message.
	return &Error{Kind: Invalid, Msg: "Request is invalid: " + reason, Details: map[string]any{"columns": []string{reason}}}
}

// validate checks the merged metadata as a whole.
func (p *putPlan) validate() error {
	reasons := map[string][]string{}
	seen := map[columnar.Role]string{}
	for _, c := range p.cols {
		switch c.Role {
		case columnar.RoleTarget, columnar.RoleTimestamp, columnar.RoleKey:
			if other, dup := seen[c.Role]; dup {
				reasons[c.Name] = append(reasons[c.Name], fmt.Sprintf("Only one column may have role %s; %s has it too", c.Role, other))
			}
			seen[c.Role] = c.Name
		}
		if c.Role == columnar.RoleTimestamp && c.DataType != "" && c.DataType != columnar.Date {
			reasons[c.Name] = append(reasons[c.Name], "Timestamp columns must have data type date")
		}
	}
	if len(reasons) > 0 {
		return MetadataError(reasons)
	}
	return nil
}

// noteReadTypes settles the column types from what the reader saw: a
// column whose type the caller did not declare takes the type read when it
// had none or its storage class differs (a column with neither stored
// values nor a declaration stays untyped), and the date columns that
// increased and the numeric columns of only 0 and 1 are noted for role
// inference.
func (p *putPlan) noteReadTypes(cols []ingest.ColumnInfo) {
	for _, ci := range cols {
		if ci.Increasing {
			if p.increasing == nil {
				p.increasing = map[string]bool{}
			}
			p.increasing[strings.ToLower(ci.Name)] = true
		}
		if ci.ZeroOne {
			if p.zeroOne == nil {
				p.zeroOne = map[string]bool{}
			}
			p.zeroOne[strings.ToLower(ci.Name)] = true
		}
		c := p.column(ci.Name)
		if _, stored := p.tableCols[strings.ToLower(ci.Name)]; !stored && !p.declared[strings.ToLower(ci.Name)] {
			// No value of this column has been seen (a header-only upload):
			// its type stays open for the first rows to decide.
			continue
		}
		if !p.declared[strings.ToLower(ci.Name)] || c.DataType == "" {
			if c.DataType == "" || c.DataType.Storage() != ci.DataType.Storage() {
				c.DataType = ci.DataType
			}
		}
	}
}
