package engine

// Attribute keys of structured log lines, shared by every package that logs.
const (
	LogRequestID = "request_id"
	LogSessionID = "session_id"
	LogDataset   = "dataset"
	LogAlgorithm = "algorithm"
	LogRows      = "rows"
	LogBytes     = "bytes"
	LogElapsed   = "elapsed"
	LogErr       = "err"
)
