-- A completed classification session's classes (JSON list of labels in
-- `classes` order, MODELLING §7.1) and its champion's confusion matrix on
-- the test rows (JSON K×K counts, row = actual, column = predicted, §7.3).
CREATE TABLE catalog.session_classes (
    session_id VARCHAR NOT NULL,
    classes    VARCHAR NOT NULL,
    confusion  VARCHAR NOT NULL
);
