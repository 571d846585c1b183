--
-- index_pages.sql: the index pages a query's Bitmap Index Scan reads,
-- included (\i) by the tests that count them.  Not a test of its own.
--
--   index_pages(query)
--       runs EXPLAIN (ANALYZE, BUFFERS) of the query twice, with
--       sequential scans off, and returns the buffers (hit and read) of the
--       Bitmap Index Scan node of the second run: the first may read the
--       band and summary maps, which a backend caches.
--
CREATE OR REPLACE FUNCTION index_pages(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
	inscan bool;
	pages int;
BEGIN
	SET LOCAL enable_seqscan = off;
	FOR run IN 1 .. 2 LOOP
		inscan := false;
		FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
			IF line ~ 'Bitmap Index Scan' THEN
				inscan := true;
			ELSIF inscan AND line ~ 'Buffers:' THEN
				pages := coalesce(substring(line FROM 'hit=(\d+)')::int, 0) +
					coalesce(substring(line FROM 'read=(\d+)')::int, 0);
				inscan := false;
			END IF;
		END LOOP;
	END LOOP;
	RETURN pages;
END $$;
