set terminal pngcairo size 1200,800 font "sans,9" noenhanced
set datafile missing '?'
set style data linespoints
set grid
set key top left opaque
set offsets 0, 0, graph 0.35, 0
set xlabel 'cycle (0 = fresh; each: delete 20% of the ids, VACUUM, insert as many new rows)'
set xtics 1
methods = "brin_bloom brin_bloom_nd brin_bloom_tuned btree scbf"
set output 'churn_1m.png'
set multiplot layout 2,2 title "Churn, 1,000,000 rows: heap read per probe"
set title 'deleted ids: % of the heap read per probe (mean)'
set ylabel '% of heap'
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:2 title m lw 2
set title 'never-present ids: % of the heap read per probe (mean)'
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:3 title m lw 2
set title 'deleted ids: % of probes that read any heap page'
set ylabel '% of probes'
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:5 title m lw 2
set title 'never-present ids: % of probes that read any heap page'
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:4 title m lw 2
unset multiplot
set output 'churn_fpr_1m.png'
set multiplot layout 2,2 title "Churn, 1,000,000 rows: false positives, size, latency"
set title 'false positives: scbf segments whose filter says maybe (never-present ids), BRIN heap share'
set ylabel '%'
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:(strstrt(m, "scbf") ? $9 : $3) title m lw 2
set title 'index size, MB'
set ylabel 'MB'
set logscale y
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:6 title m lw 2
set title 'never-present ids: median ms (log)'
set ylabel 'ms'
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:7 title m lw 2
set title 'live ids: median ms (log)'
plot for [m in methods] 'churn_1m_'.m.'.dat' using 1:8 title m lw 2
unset multiplot
