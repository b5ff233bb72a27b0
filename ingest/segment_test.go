package ingest_test

import (
	"strings"
	"testing"

	"github.com/vaticml/vatic/ingest"
)

// TestSegments reads a CSV whose only column widens from numeric to string
// after the sample: the batches before the change form one segment, the
// rest another, and every batch of a segment has the segment's schema.
func TestSegments(t *testing.T) {
	mem := checkedMem(t)
	opts := ingest.Options{Allocator: mem, BatchRows: 1, SampleRows: 1, Workers: 1}
	r, err := ingest.NewCSV(strings.NewReader("a\n1\n2\nx\ny\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var got []string // per segment: its column type and row count
	for seg := ingest.FirstSegment(r); seg != nil; seg = seg.NextSegment() {
		rows := 0
		for seg.Next() {
			if !seg.RecordBatch().Schema().Equal(seg.Schema()) {
				t.Errorf("segment %d: batch schema %v, want %v", len(got), seg.RecordBatch().Schema(), seg.Schema())
			}
			rows += int(seg.RecordBatch().NumRows())
		}
		seg.Retain() // no-ops, as array.RecordReader requires them
		seg.Release()
		got = append(got, seg.Schema().Field(0).Type.String()+" "+strings.Repeat("r", rows))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	want := []string{"float64 rr", "utf8 rr"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("segments = %q, want %q", got, want)
	}
}

// TestSegmentsDiscard stops inside the first segment: Discard frees what it
// holds (the checked allocator fails the test on a leak).
func TestSegmentsDiscard(t *testing.T) {
	mem := checkedMem(t)
	opts := ingest.Options{Allocator: mem, BatchRows: 1, SampleRows: 1, Workers: 1}
	r, err := ingest.NewCSV(strings.NewReader("a\n1\nx\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	seg := ingest.FirstSegment(r)
	if seg == nil || !seg.Next() {
		t.Fatal("FirstSegment(r) has no batch, want one")
	}
	seg.Discard()
	var none *ingest.Segment
	none.Discard()

	empty, err := ingest.NewCSV(strings.NewReader("a\n"), ingest.Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Release()
	if seg := ingest.FirstSegment(empty); seg != nil {
		t.Errorf("FirstSegment(header only) = %v, want nil", seg)
	}
}
