-- Imports (REFERENCE §5): durable jobs claimed by the engine's import
-- workers. Credentials are never stored: needs_secret marks an import that
-- cannot run again after a restart because its credentials were in memory.
CREATE TABLE catalog.imports (
    id              VARCHAR   NOT NULL,
    kind            VARCHAR   NOT NULL, -- url, objectstore, blobstore
    dataset         VARCHAR   NOT NULL,
    status          VARCHAR   NOT NULL,
    content_type    VARCHAR,            -- csv, json, or NULL to detect
    parameters      VARCHAR   NOT NULL, -- JSON list of [name, value] pairs, as shown
    request_columns VARCHAR   NOT NULL, -- JSON column metadata supplied with the request
    result_columns  VARCHAR,            -- JSON column metadata of the dataset after the import
    needs_secret    BOOLEAN   NOT NULL,
    requested       TIMESTAMP NOT NULL,
    status_date     TIMESTAMP NOT NULL
);

CREATE TABLE catalog.import_history (
    import_id VARCHAR   NOT NULL,
    seq       INTEGER   NOT NULL,
    date      TIMESTAMP NOT NULL,
    status    VARCHAR   NOT NULL
);

CREATE TABLE catalog.import_messages (
    import_id VARCHAR NOT NULL,
    seq       INTEGER NOT NULL,
    severity  VARCHAR NOT NULL,
    message   VARCHAR NOT NULL
);
