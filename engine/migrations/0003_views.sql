-- Views (REFERENCE §4): the definition as the API shows it, and the
-- datasets each view reads, for filters and cascades. The compiled SQL
-- lives in DuckDB as views."<name>".
CREATE TABLE catalog.views (
    name       VARCHAR   NOT NULL,
    dataset    VARCHAR   NOT NULL, -- the base dataset
    joins      VARCHAR   NOT NULL, -- JSON joins, as supplied and normalised
    columns    VARCHAR   NOT NULL, -- JSON column metadata overrides, as supplied
    sql        VARCHAR   NOT NULL, -- the compiled SELECT behind views."<name>"
    effective  VARCHAR   NOT NULL, -- JSON effective column metadata when last planned
    created    TIMESTAMP NOT NULL,
    modified   TIMESTAMP NOT NULL
);

CREATE TABLE catalog.view_sources (
    view    VARCHAR NOT NULL,
    dataset VARCHAR NOT NULL
);
