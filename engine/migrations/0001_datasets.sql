-- Schemas of the DuckDB file (ARCHITECTURE §3) and the dataset catalog.
CREATE SCHEMA IF NOT EXISTS data;
CREATE SCHEMA IF NOT EXISTS views;
CREATE SCHEMA IF NOT EXISTS results;

-- One row per dataset; name is the exact spelling, also the table name in
-- schema data. Names are unique case-insensitively (enforced by the engine).
CREATE TABLE catalog.datasets (
    name           VARCHAR   NOT NULL,
    created        TIMESTAMP NOT NULL,
    modified       TIMESTAMP NOT NULL,
    row_count      BIGINT    NOT NULL DEFAULT 0,
    size_bytes     BIGINT    NOT NULL DEFAULT 0,
    missing_values VARCHAR[] NOT NULL DEFAULT []
);

-- Column metadata of each dataset, in column order. data_type is NULL for a
-- column known only by metadata that named no type and has no values yet.
CREATE TABLE catalog.columns (
    dataset     VARCHAR NOT NULL,
    ordinal     INTEGER NOT NULL,
    name        VARCHAR NOT NULL,
    data_type   VARCHAR,
    role        VARCHAR,
    imputation  VARCHAR,
    aggregation VARCHAR
);
