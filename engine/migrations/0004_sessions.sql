-- Sessions (REFERENCE §6): durable jobs claimed by the session workers.
-- The request is kept as JSON so a session can run again after a restart;
-- deleted marks a session removed while its worker was still running (it
-- is hidden at once and purged when the worker stops).
CREATE TABLE catalog.sessions (
    id              VARCHAR   NOT NULL,
    type            VARCHAR   NOT NULL, -- forecast, impact, model
    domain          VARCHAR   NOT NULL, -- regression, classification, anomalies, forecast, impact
    status          VARCHAR   NOT NULL,
    data_source     VARCHAR   NOT NULL,
    target          VARCHAR   NOT NULL,
    name            VARCHAR   NOT NULL,
    event_name      VARCHAR,
    callback_url    VARCHAR   NOT NULL,
    webhook_token   VARCHAR   NOT NULL,
    is_estimate     BOOLEAN   NOT NULL,
    requested       TIMESTAMP NOT NULL,
    status_date     TIMESTAMP NOT NULL,
    request         VARCHAR   NOT NULL, -- JSON: the session request
    columns         VARCHAR   NOT NULL, -- JSON: effective column metadata
    model_id        VARCHAR,
    algorithm       VARCHAR,            -- JSON: the champion's {key, name, description}
    metrics         VARCHAR,            -- JSON: the champion's test metrics
    champion        VARCHAR,            -- contestant id of the champion
    feature_importance BOOLEAN NOT NULL DEFAULT false,
    deleted         BOOLEAN   NOT NULL DEFAULT false
);

CREATE TABLE catalog.session_history (
    session_id VARCHAR   NOT NULL,
    seq        INTEGER   NOT NULL,
    date       TIMESTAMP NOT NULL,
    status     VARCHAR   NOT NULL
);

CREATE TABLE catalog.session_messages (
    session_id VARCHAR NOT NULL,
    seq        INTEGER NOT NULL,
    severity   VARCHAR NOT NULL,
    message    VARCHAR NOT NULL
);

-- One row per contestant of a session's contest, in line-up order.
CREATE TABLE catalog.contestants (
    session_id  VARCHAR NOT NULL,
    id          VARCHAR NOT NULL,
    seq         INTEGER NOT NULL,
    algorithm   VARCHAR NOT NULL, -- JSON {key, name, description}
    properties  VARCHAR NOT NULL, -- JSON list: dataSourceProperties
    metrics     VARCHAR NOT NULL, -- JSON map; {} when the contestant failed
    importance  VARCHAR NOT NULL, -- JSON map feature -> value, scaled to a maximum of 1
    message     VARCHAR           -- why it failed
);

-- The data variants of a session's contest (/contest/selection).
CREATE TABLE catalog.selection (
    session_id VARCHAR NOT NULL,
    seq        INTEGER NOT NULL,
    properties VARCHAR NOT NULL, -- JSON list: dataSetProperties
    metrics    VARCHAR NOT NULL  -- JSON map
);

-- Feature importance of a session (/results/featureimportance).
CREATE TABLE catalog.session_features (
    session_id VARCHAR NOT NULL,
    feature    VARCHAR NOT NULL,
    importance DOUBLE  NOT NULL
);

-- Saved models: the champion refitted on every row, with the preparation
-- it needs to score new rows (imputation values, one-hot levels), as bytes.
CREATE TABLE catalog.models (
    id          VARCHAR   NOT NULL,
    session_id  VARCHAR   NOT NULL,
    domain      VARCHAR   NOT NULL,
    data_source VARCHAR   NOT NULL,
    name        VARCHAR   NOT NULL,
    created     TIMESTAMP NOT NULL,
    last_used   TIMESTAMP,
    target      VARCHAR   NOT NULL,
    algorithm   VARCHAR   NOT NULL, -- JSON {key, name, description}
    metrics     VARCHAR   NOT NULL, -- JSON map
    columns     VARCHAR   NOT NULL, -- JSON column metadata the model was trained with
    bytes       BLOB      NOT NULL
);

-- Rows predicted, for the prediction quota (REFERENCE §1.9).
CREATE TABLE catalog.usage (
    what  VARCHAR NOT NULL PRIMARY KEY,
    count BIGINT  NOT NULL
);
