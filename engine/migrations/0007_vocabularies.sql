-- Vocabularies (REFERENCE §2.9, MODELLING §10): one per text column per
-- model session that uses it. words and stop_words count the entries of
-- each type, so that a page of words needs no count over them.
CREATE TABLE catalog.vocabularies (
    id               VARCHAR   NOT NULL,
    session_id       VARCHAR   NOT NULL, -- createdBySessionId
    data_source      VARCHAR   NOT NULL,
    data_source_type VARCHAR   NOT NULL, -- dataSet or view
    column_name      VARCHAR   NOT NULL,
    created          TIMESTAMP NOT NULL,
    words            INTEGER   NOT NULL,
    stop_words       INTEGER   NOT NULL
);

-- The entries of each vocabulary, written in one bulk append per
-- vocabulary in listing order: words by rank, then stop words by text.
-- seq is that position (0-based), so a page is a range of seq within one
-- vocabulary's contiguous rows, which DuckDB's per-row-group min/max
-- statistics skip to without an index, however deep the page.
CREATE TABLE catalog.vocabulary_words (
    vocabulary_id      VARCHAR NOT NULL,
    seq                INTEGER NOT NULL,
    text               VARCHAR NOT NULL, -- a term: one word or two separated by a space
    type               VARCHAR NOT NULL, -- word or stopWord
    rank               INTEGER,          -- 0 = most important; NULL for stop words
    count              BIGINT  NOT NULL, -- occurrences in the column
    document_frequency INTEGER NOT NULL  -- rows holding the term
);
