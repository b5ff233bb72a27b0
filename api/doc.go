// Package api is Vatic's HTTP front: the Nexosis API v1 under /v1 on
// httprouter. It decodes requests, makes one engine call per handler,
// encodes responses (data pages straight from Arrow batches) and maps every
// error to the one error body of the reference (errors.go). Options.Compat
// switches the few values the specification renamed back to the original
// service's spellings; compat.go holds every difference. It imports only
// engine and columnar from this module.
package api
