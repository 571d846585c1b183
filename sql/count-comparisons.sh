#!/bin/sh
# Count the index-versus-seqscan comparisons recorded in expected/*.out (or
# the files given), from the result cells that sql/include/scbf_same.sql's
# functions return: "index N", "index generic N" (the scbf index scanned, N
# rows), "no index N" (a deliberate case the planner cannot index).  Cells
# of the older helpers ("seqscan N", "plan: ... N", scbf_check's "<first
# plan line> N") are counted too, so that old and new files compare.
#
# A comparison "can fail" when it went through the index and returned rows:
# one that returns none cannot be contradicted by a recheck, one that does
# not scan the index tests nothing of it.
#
# Columns: total; index = through the index with rows (can fail); empty =
# through the index, no rows; no index; unknown = a cell without a row count.
#
#   sql/count-comparisons.sh [FILE...]      per file, then the total
#
# Without FILEs: expected/*.out without the alternative outputs
# (expected/NAME_1.out, what differs on other majors), so that each
# comparison counts once, as on PostgreSQL 15; the README's numbers are
# these.
cd "$(dirname "$0")/.." || exit 1
if [ $# = 0 ]; then
	for f in expected/*.out; do
		case $f in
		*_[0-9].out) ;;
		*) set -- "$@" "$f" ;;
		esac
	done
fi
awk '
	FNR == 1 { files[++nf] = FILENAME }
	/^ / {
		n = split($0, cell, "|")
		for (i = 1; i <= n; i++) {
			c = cell[i]; gsub(/^ +| +$/, "", c)
			if (c == "index") {	# the oldest helper: no row count
				total[FILENAME]++; all++; unk[FILENAME]++; allunk++
				continue
			}
			sub(/^[a-z_0-9]+: /, "", c)	# "index_name: index N"
			if (c !~ /^(index|index generic|no index|seqscan|plan: .*|Seq Scan on [^ ]+|Result|Bitmap Heap Scan on [^ ]+) [0-9]+$/)
				continue
			rows = c; sub(/.* /, "", rows); how = c; sub(/ [0-9]+$/, "", how)
			total[FILENAME]++; all++
			if (how ~ /^index/) {
				if (rows > 0) { live[FILENAME]++; alllive++ } else { empty[FILENAME]++; allempty++ }
			} else { noidx[FILENAME]++; allnoidx++ }
		}
	}
	END {
		printf "%-32s %6s %6s %6s %8s %8s\n", "file", "total", "index", "empty", "no index", "unknown"
		for (i = 1; i <= nf; i++) { f = files[i]
			printf "%-32s %6d %6d %6d %8d %8d\n", f, total[f], live[f], empty[f], noidx[f], unk[f] }
		printf "%-32s %6d %6d %6d %8d %8d\n", "all (\"index\" = can fail)", all, alllive, allempty, allnoidx, allunk
	}' "$@"
