// Package text turns free-text columns into sparse TF-IDF features
// (MODELLING §10): the tokeniser and its English stop list, the fitted
// vocabulary with its word ranks and idf, an encoder that replays a stored
// vocabulary on new documents, a compressed sparse row matrix, and a sparse
// version of the feature importance of §9 used to down-select terms.
//
// Everything stays sparse: a 100 000-document column is a CSR matrix of its
// non-zeros, never a dense one, and Importance scores columns in one pass
// over those non-zeros. The package is pure Go (no cgo), so it builds and
// tests with CGO_ENABLED=0 like the rest of stats; it imports only the
// standard library, does no I/O and does not log.
//
// The TF-IDF values equal scikit-learn's TfidfVectorizer(ngram_range=(1, 2),
// min_df=2, max_df=0.95, smooth_idf=True, sublinear_tf=False) fed with this
// package's tokens (testdata/tfidf_reference.py).
package text
