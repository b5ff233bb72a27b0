package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// textSource is a PredictSource of text columns, as a CSV body gives them:
// one batch per element of batches, each a row-major table of values.
type textSource struct {
	names   []string
	batches [][][]string
	opts    PredictOptions
}

func (s *textSource) Options() (PredictOptions, bool, error) { return s.opts, true, nil }

func (s *textSource) Next() (PredictBatch, error) {
	if len(s.batches) == 0 {
		return PredictBatch{}, io.EOF
	}
	rows := s.batches[0]
	s.batches = s.batches[1:]
	fields := make([]arrow.Field, len(s.names))
	cols := make([]arrow.Array, len(s.names))
	for j, n := range s.names {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for _, r := range rows {
			b.Append(r[j])
		}
		fields[j], cols[j] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}, b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return PredictBatch{Rec: rec}, nil
}

// predictText scores rows of text values and drains the answer.
func (e *Engine) predictText(ctx context.Context, id string, names []string, batches ...[][]string) ([]arrow.RecordBatch, error) {
	out, err := e.PredictStream(ctx, id, &textSource{names: names, batches: batches}, nil)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	var recs []arrow.RecordBatch
	for {
		rec, err := out.Next()
		if err == io.EOF {
			return recs, out.Commit()
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
}
