package api

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// The media types of the columnar answers (issue 17): the Arrow IPC
// stream format and Parquet.
const (
	mediaArrowStream = "application/vnd.apache.arrow.stream"
	mediaParquet     = "application/vnd.apache.parquet"
)

// rowFormat is a representation of rows a client can ask for with Accept.
type rowFormat uint8

const (
	formatJSON rowFormat = iota
	formatCSV
	formatArrow
	formatParquet
)

// columnar reports whether f is a binary columnar format (Arrow IPC or
// Parquet): rows only, typed, streamed batch by batch.
func (f rowFormat) columnar() bool { return f == formatArrow || f == formatParquet }

// mediaType is the Content-Type of a columnar answer in f.
func (f rowFormat) mediaType() string {
	if f == formatParquet {
		return mediaParquet
	}
	return mediaArrowStream
}

// String names f as the page cache keys it.
func (f rowFormat) String() string {
	switch f {
	case formatCSV:
		return "csv"
	case formatArrow:
		return "arrow"
	case formatParquet:
		return "parquet"
	}
	return "json"
}

// acceptedFormat reads the Accept header: of CSV, the Arrow IPC stream
// and Parquet, the one it names with the highest quality (the first
// listed among equals; q=0 refuses a type); anything else means JSON, the
// default, so no request is refused with 406 (REFERENCE §1.2). JSON takes
// no part in the choice: a client naming CSV beside JSON has always
// received CSV.
func acceptedFormat(r *http.Request) rowFormat {
	best, bestQ := formatJSON, 0.0
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, ps, _ := mime.ParseMediaType(strings.TrimSpace(part))
		var f rowFormat
		switch strings.ToLower(mt) {
		case "text/csv":
			f = formatCSV
		case mediaArrowStream:
			f = formatArrow
		case mediaParquet:
			f = formatParquet
		default:
			continue
		}
		q := 1.0
		if v, ok := ps["q"]; ok {
			if pq, err := strconv.ParseFloat(v, 64); err == nil {
				q = pq
			}
		}
		if q > bestQ {
			best, bestQ = f, q
		}
	}
	return best
}
