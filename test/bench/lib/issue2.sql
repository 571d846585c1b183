-- test/bench/lib/issue2.sql: the issue-2 section of the report (included by
-- report.sql): sizes against btree, probe costs against btree and BRIN
-- bloom, and the churn cycles against the issue's targets.
SELECT coalesce((SELECT tab FROM bench.tables WHERE tab LIKE 'orders%'
		ORDER BY abs(nrows - 1000000), nrows DESC LIMIT 1), '') AS i2tab,
	coalesce((SELECT tab FROM bench.tables WHERE tab LIKE 'churn%' LIMIT 1), '') AS i2churn
\gset
-- the scbf method the section reports
\set i2m scbf

SELECT '## Issue 2: size, probe cost and churn';
SELECT '';
SELECT format('Table `%s` (%s rows) and churn table `%s` (%s rows).%s',
	:'i2tab', to_char((SELECT nrows FROM bench.tables WHERE tab = :'i2tab'), 'FM999,999,999'),
	:'i2churn', to_char((SELECT nrows FROM bench.tables WHERE tab = :'i2churn'), 'FM999,999,999'),
	CASE WHEN (SELECT nrows FROM bench.tables WHERE tab = :'i2tab') <> 1000000
		THEN '  **Not the issue''s 1,000,000 rows: indicative only (run `--issue2` or `--full`).**' ELSE '' END);
SELECT '';
SELECT '### Index size against btree on the same column';
SELECT '';
SELECT '| column | btree | scbf | scbf ÷ btree | target | met | BRIN bloom | BRIN bloom tuned |';
SELECT '|---|---|---|---|---|---|---|---|';
SELECT format('| %s | %s | %s | %s | ≤ %s× | %s | %s | %s |', c.col,
	pg_temp.sz(bt.size_bytes), pg_temp.sz(sc.size_bytes),
	round(sc.size_bytes::numeric / bt.size_bytes, 3), c.target,
	CASE WHEN sc.size_bytes <= c.target * bt.size_bytes THEN 'yes' ELSE '**no**' END,
	pg_temp.sz(bb.size_bytes), pg_temp.sz(bbt.size_bytes))
FROM (VALUES (1, 'customer_id', 1.0), (2, 'code', 0.5)) c(o, col, target)
JOIN bench.build bt ON bt.tab = :'i2tab' AND bt.col = c.col AND bt.method = 'btree'
JOIN bench.build sc ON sc.tab = :'i2tab' AND sc.col = c.col AND sc.method = :'i2m'
LEFT JOIN bench.build bb ON bb.tab = :'i2tab' AND bb.col = c.col AND bb.method = 'brin_bloom'
LEFT JOIN bench.build bbt ON bbt.tab = :'i2tab' AND bbt.col = c.col AND bbt.method = 'brin_bloom_tuned'
ORDER BY c.o;
SELECT '';
SELECT '### Probe cost, fresh index';
SELECT '';
SELECT '| column | values | method | median ms | p95 ms | × btree | index pages | heap pages | heap share | probes touching heap | heap ÷ true |';
SELECT '|---|---|---|---|---|---|---|---|---|---|---|';
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |', s.col, s.kind, s.method,
	pg_temp.n(s.med_ms), pg_temp.n(s.p95_ms), pg_temp.ratio(b.x_btree, 1),
	pg_temp.n(s.idx_pages), pg_temp.n(s.heap_pages), pg_temp.pct(s.heap_share),
	pg_temp.pct(s.touch_share), pg_temp.n(s.heap_per_true))
FROM bench.summary s
LEFT JOIN bench.xbtree b USING (tab, method, col, kind)
WHERE s.tab = :'i2tab' AND s.col IN ('customer_id', 'code') AND s.kind IN ('present', 'absent')
	AND s.method IN ('btree', 'brin_bloom', 'brin_bloom_tuned', :'i2m')
ORDER BY s.col DESC, s.kind DESC, pg_temp.morder(s.method);
SELECT '';

SELECT '### Churn: heap pages per probe after each cycle';
SELECT '';
SELECT $$Share of the heap read per probe (mean over probes, max in parentheses) and share of probes that read the heap at all, for ids deleted in that cycle and ids never present.  Cycle 0 is the fresh index.$$;
SELECT '';
SELECT '| cycle | scbf deleted | scbf never | scbf never: pages/probe (× cycle 0) | scbf never ms (× cycle 0) | BRIN tuned deleted | touching | BRIN tuned never | touching | BRIN default deleted | touching | BRIN default never | touching | btree deleted | btree never |';
SELECT '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';
WITH c AS (SELECT * FROM bench.csummary WHERE tab = :'i2churn')
SELECT format('| %s | %s (%s) | %s | %s (%s) | %s (%s) | %s (%s) | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s |',
	cy.cycle,
	pg_temp.pct(sd.heap_share), pg_temp.pct(sd.heap_share_max), pg_temp.pct(sn.heap_share),
	pg_temp.n(sn.pages), pg_temp.ratio(sn.pages, sn0.pages),
	pg_temp.n(sn.med_ms), pg_temp.ratio(sn.med_ms, sn0.med_ms),
	pg_temp.pct(td.heap_share), pg_temp.pct(td.heap_share_max), pg_temp.pct(td.touch_share),
	pg_temp.pct(tn.heap_share), pg_temp.pct(tn.touch_share),
	pg_temp.pct(dd.heap_share), pg_temp.pct(dd.heap_share_max), pg_temp.pct(dd.touch_share),
	pg_temp.pct(dn.heap_share), pg_temp.pct(dn.touch_share),
	pg_temp.pct(bd.heap_share), pg_temp.pct(bn.heap_share))
FROM (SELECT DISTINCT cycle FROM c) cy
LEFT JOIN c sd ON sd.cycle = cy.cycle AND sd.method = :'i2m' AND sd.kind = 'deleted'
LEFT JOIN c sn ON sn.cycle = cy.cycle AND sn.method = :'i2m' AND sn.kind = 'never'
LEFT JOIN c sn0 ON sn0.cycle = 0 AND sn0.method = :'i2m' AND sn0.kind = 'never'
LEFT JOIN c td ON td.cycle = cy.cycle AND td.method = 'brin_bloom_tuned' AND td.kind = 'deleted'
LEFT JOIN c tn ON tn.cycle = cy.cycle AND tn.method = 'brin_bloom_tuned' AND tn.kind = 'never'
LEFT JOIN c dd ON dd.cycle = cy.cycle AND dd.method = 'brin_bloom' AND dd.kind = 'deleted'
LEFT JOIN c dn ON dn.cycle = cy.cycle AND dn.method = 'brin_bloom' AND dn.kind = 'never'
LEFT JOIN c bd ON bd.cycle = cy.cycle AND bd.method = 'btree' AND bd.kind = 'deleted'
LEFT JOIN c bn ON bn.cycle = cy.cycle AND bn.method = 'btree' AND bn.kind = 'never'
ORDER BY cy.cycle;
SELECT '';
SELECT '### Targets';
SELECT '';
WITH c AS (SELECT * FROM bench.csummary WHERE tab = :'i2churn'),
sz AS (SELECT b.col, s.size_bytes::float8 / b.size_bytes AS r
	FROM bench.build b JOIN bench.build s ON s.tab = b.tab AND s.col = b.col AND s.method = :'i2m'
	WHERE b.tab = :'i2tab' AND b.method = 'btree')
SELECT string_agg(line, E'\n' ORDER BY o) FROM (
SELECT 1 AS o, format('- scbf size ≤ 0.5 × btree on the text column: %s (%s).',
	(SELECT CASE WHEN r <= 0.5 THEN 'met' ELSE '**not met**' END FROM sz WHERE col = 'code'),
	(SELECT round(r::numeric, 3) || '×' FROM sz WHERE col = 'code')) AS line
UNION ALL
SELECT 2, format('- scbf size ≤ 1.0 × btree on the int4 column: %s (%s).',
	(SELECT CASE WHEN r <= 1.0 THEN 'met' ELSE '**not met**' END FROM sz WHERE col = 'customer_id'),
	(SELECT round(r::numeric, 3) || '×' FROM sz WHERE col = 'customer_id'))
UNION ALL
SELECT 3, format('- After VACUUM a deleted id costs at most 2%% of the heap pages per probe: %s (worst probe over cycles 1–%s: %s of the heap; mean %s).',
	CASE WHEN max(heap_share_max) <= 0.02 THEN 'met' ELSE '**not met**' END,
	max(cycle), pg_temp.pct(max(heap_share_max)), pg_temp.pct(avg(heap_share)))
FROM c WHERE method = :'i2m' AND kind IN ('deleted', 'deleted_earlier') AND cycle > 0
UNION ALL
SELECT 4, format('- Never-present ids stay within 1.5× of their cost on the fresh index: %s (pages per probe: worst cycle %s× cycle 0; median latency: worst cycle %s× cycle 0; heap share %s at cycle 0, at most %s later).',
	CASE WHEN max(n.pages / n0.pages) <= 1.5 THEN 'met (pages)' ELSE '**not met** (pages)' END,
	round(max(n.pages / n0.pages)::numeric, 2), round(max(n.med_ms / n0.med_ms)::numeric, 2),
	pg_temp.pct(max(n0.heap_share)), pg_temp.pct(max(n.heap_share)))
FROM c n JOIN c n0 ON n0.method = n.method AND n0.kind = n.kind AND n0.cycle = 0
WHERE n.method = :'i2m' AND n.kind = 'never' AND n.cycle > 0
UNION ALL
-- the same figures for each BRIN bloom variant, each with its own wording
SELECT v.o, format(v.fmt,
	pg_temp.pct(min(heap_share) FILTER (WHERE kind = 'deleted' AND cycle > 0)),
	pg_temp.pct(max(heap_share) FILTER (WHERE kind = 'deleted' AND cycle > 0)),
	pg_temp.pct(max(heap_share) FILTER (WHERE kind = 'never' AND cycle = 0)),
	pg_temp.pct(max(heap_share) FILTER (WHERE kind = 'never' AND cycle = (SELECT max(cycle) FROM c))),
	pg_temp.pct(max(touch_share) FILTER (WHERE kind = 'never' AND cycle = 0)),
	pg_temp.pct(max(touch_share) FILTER (WHERE kind = 'never' AND cycle = (SELECT max(cycle) FROM c))))
FROM c JOIN (VALUES
	(5, 'brin_bloom_tuned', '- BRIN bloom tuned, same run: a deleted id reads %s–%s of the heap per probe (issue: 4–13%%); never-present ids %s at cycle 0 growing to %s (issue: 0.4%% to 8.5%%), probes touching the heap %s to %s (issue: 9%% to 89%%).'),
	(6, 'brin_bloom', '- BRIN bloom default, same run: deleted ids %s–%s of the heap; never-present %s to %s, touching %s to %s.'),
	(7, 'brin_bloom_nd', '- BRIN bloom with only n_distinct_per_range tuned (128 pages per range, 1%% FPR), same run: deleted ids %s–%s of the heap; never-present %s to %s, touching %s to %s.')
) v(o, method, fmt) USING (method)
GROUP BY v.o, v.fmt
) x
WHERE line IS NOT NULL AND line NOT LIKE '%–––%';
SELECT '';
