-- When each import and session message was written, for GET /messages
-- (REFERENCE §8.10: createdAt). Messages written before this migration get
-- the time their job was requested, the nearest time the catalog knows.
ALTER TABLE catalog.session_messages ADD COLUMN created TIMESTAMP;
ALTER TABLE catalog.import_messages ADD COLUMN created TIMESTAMP;
UPDATE catalog.session_messages AS m SET created = s.requested
    FROM catalog.sessions AS s WHERE s.id = m.session_id;
UPDATE catalog.import_messages AS m SET created = i.requested
    FROM catalog.imports AS i WHERE i.id = m.import_id;
