--
-- scbf_options: index options at their bounds and beyond, unknown options,
-- ALTER INDEX SET (takes effect at REINDEX), progress phase names.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS scbf;
RESET client_min_messages;
CREATE TABLE opt (a int);
INSERT INTO opt SELECT g % 100 FROM generate_series(1, 5000) g;

-- in range
CREATE INDEX opt_min ON opt USING scbf (a) WITH (pages_per_segment = 8, false_positive_rate = 0.0001);
CREATE INDEX opt_max ON opt USING scbf (a) WITH (pages_per_segment = 128, false_positive_rate = 0.25);
CREATE INDEX opt_mid ON opt USING scbf (a) WITH (pages_per_segment = 32, false_positive_rate = 0.05);
SELECT c.relname, c.reloptions FROM pg_class c
WHERE c.relname LIKE 'opt\_%' ORDER BY 1;
SET enable_seqscan = off;
SELECT count(*) FROM opt WHERE a = 7;
RESET enable_seqscan;

-- out of range, wrong type, unknown (the first with its detail)
CREATE INDEX ON opt USING scbf (a) WITH (pages_per_segment = 256);
CREATE INDEX ON opt USING scbf (a) WITH (false_positive_rate = 0.5);
\set VERBOSITY terse
CREATE INDEX ON opt USING scbf (a) WITH (pages_per_segment = 7);
CREATE INDEX ON opt USING scbf (a) WITH (pages_per_segment = 129);
CREATE INDEX ON opt USING scbf (a) WITH (pages_per_segment = 0);
CREATE INDEX ON opt USING scbf (a) WITH (pages_per_segment = -1);
CREATE INDEX ON opt USING scbf (a) WITH (pages_per_segment = 'x');
CREATE INDEX ON opt USING scbf (a) WITH (false_positive_rate = 0);
CREATE INDEX ON opt USING scbf (a) WITH (false_positive_rate = 0.00009);
CREATE INDEX ON opt USING scbf (a) WITH (false_positive_rate = 0.26);
CREATE INDEX ON opt USING scbf (a) WITH (false_positive_rate = 1);
CREATE INDEX ON opt USING scbf (a) WITH (false_positive_rate = 'x');
CREATE INDEX ON opt USING scbf (a) WITH (length = 80);
CREATE INDEX ON opt USING scbf (a) WITH (pages_per_range = 16);
ALTER INDEX opt_mid SET (pages_per_segment = 200);
ALTER INDEX opt_mid SET (bogus = 1);
\set VERBOSITY default

-- ALTER INDEX SET changes the options; the layout follows at REINDEX
ALTER INDEX opt_mid SET (pages_per_segment = 16);
SELECT reloptions FROM pg_class WHERE relname = 'opt_mid';
REINDEX INDEX opt_mid;
SET enable_seqscan = off;
SELECT count(*) FROM opt WHERE a = 7;
RESET enable_seqscan;
ALTER INDEX opt_mid RESET (pages_per_segment);
SELECT reloptions FROM pg_class WHERE relname = 'opt_mid';

-- progress phases shown in pg_stat_progress_create_index
SELECT n, pg_indexam_progress_phasename((SELECT oid FROM pg_am WHERE amname = 'scbf'), n)
FROM generate_series(0, 4) n;

-- the access method's properties
SELECT prop, pg_indexam_has_property((SELECT oid FROM pg_am WHERE amname = 'scbf'), prop)
FROM unnest(ARRAY['can_order', 'can_unique', 'can_multi_col', 'can_exclude', 'can_include']) prop;
SELECT prop, pg_index_has_property('opt_min'::regclass, prop)
FROM unnest(ARRAY['clusterable', 'index_scan', 'bitmap_scan', 'backward_scan']) prop;
SELECT prop, pg_index_column_has_property('opt_min'::regclass, 1, prop)
FROM unnest(ARRAY['asc', 'orderable', 'distance_orderable', 'returnable', 'search_array', 'search_nulls']) prop;

DROP TABLE opt;
