package api

import (
	"encoding/json"
	"fmt"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine"
)

// Compat chooses the spelling of the few values the specification renamed
// or changed from the original service (REFERENCE §9 rows 3, 11, 12 and 19,
// and the "Compatibility switch" after the table). It changes output only:
// inputs accept both spellings in either mode (import paths s3 ≡
// objectstore and azure ≡ blobstore in any case; a callbackUrl of "" or
// null means none). The encoders ask its methods, so every difference
// between the modes lives in this file. The zero value is CompatSpec.
type Compat int

const (
	// CompatSpec emits the specification's values: import type
	// objectstore/blobstore, callbackUrl "" when none, 404 itemType
	// modelId, import columns {} until the import has completed.
	CompatSpec Compat = iota
	// CompatOriginal emits the original service's, for client code that
	// decodes them strictly (the Java ImportType enum and the Python
	// client's lookup reject objectstore): import type s3/azure, no
	// callbackUrl when none, 404 itemType model, import columns echoing the
	// request's metadata until the import has completed.
	CompatOriginal
)

var compatNames = [...]string{CompatSpec: "spec", CompatOriginal: "original"}

// String returns spec or original.
func (c Compat) String() string {
	if c >= 0 && int(c) < len(compatNames) {
		return compatNames[c]
	}
	return fmt.Sprintf("Compat(%d)", int(c))
}

// MarshalText returns the name of c.
func (c Compat) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads spec or original; anything else is an error naming
// both.
func (c *Compat) UnmarshalText(b []byte) error {
	for i, n := range compatNames {
		if string(b) == n {
			*c = Compat(i)
			return nil
		}
	}
	return fmt.Errorf("compat must be spec or original, not %q", b)
}

// importType is an import's type (row 3): the engine's kinds are the
// seed's objectstore, blobstore and url; the original said s3 and azure.
func (c Compat) importType(k engine.ImportKind) string {
	if c == CompatOriginal {
		switch k {
		case engine.ImportObjectStore:
			return "s3"
		case engine.ImportBlobStore:
			return "azure"
		}
	}
	return string(k)
}

// callbackURL is a session's callbackUrl field (row 11); nil omits it.
// The specification sends "" when there is none. The original's recordings
// either sent null or "" (2017) or left the field out (2018); the original
// mode leaves it out, as the service's latest recordings do and as row 10
// recommends for every null of the original (clients that read the field
// treat a missing one as none, and none of them requires it).
func (c Compat) callbackURL(u string) *string {
	if u == "" && c == CompatOriginal {
		return nil
	}
	return &u
}

// notFound adjusts a 404 for the original's itemType of a missing model
// (row 12): model instead of modelId, in errorDetails and in the message.
// It returns details unchanged otherwise, and never modifies them (they
// belong to the error).
func (c Compat) notFound(kind engine.Kind, msg string, details map[string]any) (string, map[string]any) {
	if c != CompatOriginal || kind != engine.NotFound || details["itemType"] != engine.ItemModel {
		return msg, details
	}
	out := make(map[string]any, len(details))
	for k, v := range details {
		out[k] = v
	}
	out["itemType"] = "model"
	if id, ok := details["itemId"].(string); ok {
		msg = engine.NotFoundMessage("model", id)
	}
	return msg, out
}

// importColumns is an import's columns (row 19). Once the import has
// completed, both modes show the dataset's resulting metadata. Before (and
// when it failed) the specification shows {}, and the original echoed the
// metadata the request supplied, field by field as given (cassette
// import_from_s3.yml: no defaults filled in).
func (c Compat) importColumns(imp engine.Import) json.Marshaler {
	if imp.Status == engine.StatusCompleted {
		return columnsJSON(imp.Columns)
	}
	if c == CompatOriginal {
		return suppliedJSON(imp.Supplied)
	}
	return columnsJSON(nil)
}

// suppliedJSON renders column metadata as a request supplied it: an
// object in column order with only the fields given.
type suppliedJSON []columnar.Spec

func (cs suppliedJSON) MarshalJSON() ([]byte, error) {
	type spec struct {
		DataType    string `json:"dataType,omitempty"`
		Role        string `json:"role,omitempty"`
		Imputation  string `json:"imputation,omitempty"`
		Aggregation string `json:"aggregation,omitempty"`
	}
	o := &orderedObject{}
	for _, s := range cs {
		o.set(s.Name, spec{s.DataType, s.Role, s.Imputation, s.Aggregation})
	}
	return o.MarshalJSON()
}
