// Package api is Vatic's HTTP front: the Nexosis API v1 under /v1 on
// httprouter. It decodes requests, makes one engine call per handler,
// encodes responses (data pages straight from Arrow batches) and maps every
// error to the one error body of the reference (errors.go). Options.Compat
// switches the few values the specification renamed back to the original
// service's spellings; compat.go holds every difference. Callbacks
// (callbacks.go) is the engine's Notifier: it renders a session callback's
// body the way GET /sessions/{id} does and hands it to a Deliverer (the
// webhook package), so the body has one owner. It imports only engine and
// columnar from this module.
package api
