# test/bench/plots.gp: the benchmark's plots, from the .dat files of plotdata.sql
set terminal pngcairo size 900,480 font "sans,10"
set datafile missing '?'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top left
set xtics rotate by -30

set output 'latency.png'
set title 'Probe latency, median (ms, log scale; largest table)'
set logscale y
set ylabel 'ms'
plot 'latency.dat' using 2:xtic(1) title 'clustered, present', \
     '' using 3 title 'clustered, absent', \
     '' using 4 title 'random text, present', \
     '' using 5 title 'random text, absent'

set output 'size.png'
set title 'Index size (MB, log scale; largest table)'
set ylabel 'MB'
plot 'size.dat' using 2:xtic(1) title 'clustered int4', \
     '' using 3 title 'random text', \
     '' using 4 title 'low cardinality'

unset logscale y
set style data linespoints
set xtics norotate 1
set output 'churn.png'
set title 'Churn: share of the heap a probe reads after each cycle'
set xlabel 'cycle (delete 20% of the ids, VACUUM, insert as many new rows)'
set ylabel '% of the heap per probe'
set key top left
plot 'churn.dat' using 1:2 title 'scbf, deleted ids' lw 2 pt 7, \
     '' using 1:3 title 'BRIN bloom tuned, deleted ids' lw 2 pt 5, \
     '' using 1:4 title 'BRIN bloom default, deleted ids' lw 2 pt 9, \
     '' using 1:6 title 'scbf, never present' lw 2 pt 6 dt 2, \
     '' using 1:7 title 'BRIN bloom tuned, never present' lw 2 pt 4 dt 2, \
     '' using 1:8 title 'BRIN bloom default, never present' lw 2 pt 8 dt 2
