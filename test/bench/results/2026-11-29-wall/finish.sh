#!/bin/bash
# the bench's grow_finish for the wall table, by hand on the live cluster
set -u
T=wall_70000
Q() { su postgres -c "PGOPTIONS='-c client_min_messages=warning $1' psql -X -q -v ON_ERROR_STOP=1 -At -p 5432 -h /var/run/postgresql -d scbf_bench -c \"$2\""; }
ts() { date +%H:%M:%S; }
FORCE="-c enable_seqscan=off -c enable_indexscan=off -c enable_indexonlyscan=off -c enable_tidscan=off -c max_parallel_workers_per_gather=0 -c jit=off"
echo "$(ts) VACUUM"; Q "" "VACUUM $T"
echo "$(ts) rows: $(Q '' "SELECT nrows FROM bench.grow_progress WHERE tab = '$T'"), filters: $(Q '' "SELECT bench.grow_filters('$T')")"
echo "$(ts) probes and ground truth"; Q "" "SELECT bench.grow_probes('$T', 100)"
Q "" "SELECT bench.grow_end_before('wall', '$T')"
for col in customer_id code; do for kind in present absent; do
	Q "$FORCE" "SELECT bench.run_probes('$T', 'scbf', '$col', '$kind', 100, 8)"
done; done
echo "$(ts) grown probes done"
for idx in $(Q "" "SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = '$T'::regclass ORDER BY 1"); do
	t0=$(date +%s.%N)
	Q "-c maintenance_work_mem=1GB -c max_parallel_maintenance_workers=0" "REINDEX INDEX $idx"
	Q "" "SELECT bench.grow_end_after('wall', '$T', '$idx', $(echo "$(date +%s.%N) - $t0" | bc))"
	echo "$(ts) reindexed $idx"
done
for col in customer_id code; do for kind in present absent; do
	Q "$FORCE" "SELECT bench.run_probes('$T', 'scbf_rebuilt', '$col', '$kind', 100, 8)"
done; done
echo "$(ts) rebuilt probes done"
Q "" "SELECT e.method, e.col, pg_size_pretty(e.grown_bytes), pg_size_pretty(e.rebuilt_bytes), round(e.grown_bytes::numeric / nullif(e.rebuilt_bytes, 0), 2) FROM bench.grow_end e WHERE e.variant = 'wall' AND e.tab = '$T'"
Q "" "SELECT method, col, kind, probes, round(idx_pages::numeric, 2), round(heap_pages::numeric, 2), wrong, med_ms FROM bench.summary WHERE tab = '$T' ORDER BY 1, 2, 3"
echo "$(ts) done"
