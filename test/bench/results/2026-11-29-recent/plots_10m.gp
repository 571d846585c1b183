set terminal pngcairo size 1200,800 font "sans,9" noenhanced
set datafile missing '?'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set key top left
set xtics rotate by -35 scale 0
set logscale y
set output 'latency_10m.png'
set multiplot layout 2,2 title "Probe latency, median ms (log scale), 10,000,000 rows: present value, absent value, IN-list of 10"
set ylabel 'ms'
set title 'customer_id (clustered int4)'
plot 'latency_10m_customer_id.dat' using 2:xtic(1) title columnheader, '' using 3 title columnheader, '' using 4 title columnheader
set title 'code (random text)'
plot 'latency_10m_code.dat' using 2:xtic(1) title columnheader, '' using 3 title columnheader, '' using 4 title columnheader
set title 'status (10 values everywhere)'
plot 'latency_10m_status.dat' using 2:xtic(1) title columnheader, '' using 3 title columnheader
set title 'customer_id AND status (multi-column)'
plot 'latency_10m_multi.dat' using 2:xtic(1) title columnheader, '' using 3 title columnheader, '' using 4 title columnheader
unset multiplot
set terminal pngcairo size 1000,520 font "sans,9" noenhanced
set output 'size_10m.png'
set title "Index size, MB (log scale), 10,000,000 rows"
set ylabel 'MB'
plot 'size_10m.dat' using 2:xtic(1) title 'customer_id', '' using 3 title 'code', '' using 4 title 'status', '' using 5 title 'customer_id, status'
