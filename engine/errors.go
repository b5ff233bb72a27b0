package engine

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies an error for the API. The API maps each kind to its HTTP
// status and the reference's errorType (REFERENCE §1.10) in exactly one
// place, api/errors.go; the comments give that mapping for reference.
type Kind int

// The error kinds.
const (
	Internal           Kind = iota // 500 ServerError
	Invalid                        // 400 RequestValidation
	InvalidMetadata                // 400 InvalidColumnMetadata
	InvalidDateRange               // 400 InvalidDateRange
	NoData                         // 400 NoData
	ParametersRequired             // 400 SomeParametersRequired
	Unauthorized                   // 401 (no errorType)
	Forbidden                      // 403 PlanUpgradeRequired
	NotFound                       // 404 NotFound
	Conflict                       // 409 Conflict
	TooLarge                       // 413 RequestValidation
	UnsupportedMedia               // 415 RequestValidation
	QuotaExceeded                  // 429 QuotaExceeded
	Unavailable                    // 503 ServiceUnavailable
	Canceled                       // 499 RequestCanceled
	BodyTimeout                    // 408 RequestValidation: the request body stopped arriving
)

// Error is the engine's error: a kind, a message safe to show to the
// caller, details for the error body's errorDetails (values are strings or
// []string), and the underlying cause, which is logged but never shown.
type Error struct {
	Kind    Kind
	Msg     string
	Details map[string]any
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind k with a formatted message.
func Errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Validation returns the reference's RequestValidation error with one
// message for one field or parameter.
func Validation(field, msg string) *Error {
	return &Error{Kind: Invalid, Msg: "Request is invalid", Details: map[string]any{field: []string{msg}}}
}

// MetadataError returns the InvalidColumnMetadata error with reasons keyed
// by column.
func MetadataError(reasons map[string][]string) *Error {
	d := make(map[string]any, len(reasons))
	for k, v := range reasons {
		d[k] = v
	}
	return &Error{Kind: InvalidMetadata, Msg: "One or more columns were supplied with invalid metadata", Details: d}
}

// ItemModel is the itemType of a missing model: the seed's "modelId"
// (REFERENCE §1.10, §9 #12; the original service said "model").
const ItemModel = "modelId"

// NotFoundError returns the reference's 404 for an item type and id.
func NotFoundError(itemType, id string) *Error {
	return &Error{
		Kind:    NotFound,
		Msg:     NotFoundMessage(itemType, id),
		Details: map[string]any{"itemType": itemType, "itemId": id},
	}
}

// NotFoundMessage is the message of a 404 for an item type and id
// (REFERENCE §1.10).
func NotFoundMessage(itemType, id string) string {
	return fmt.Sprintf("Item of type %s with identifier %s was not found", itemType, id)
}

// Classify returns the kind, message and details of any error: an *Error
// in its chain speaks for itself, context errors become Canceled, and
// everything else is Internal with a generic message.
func Classify(err error) (Kind, string, map[string]any) {
	var e *Error
	if errors.As(err, &e) {
		if e.Details == nil {
			return e.Kind, e.Msg, map[string]any{}
		}
		return e.Kind, e.Msg, e.Details
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Canceled, "The request was canceled", map[string]any{}
	}
	return Internal, "An unexpected error occurred", map[string]any{}
}
